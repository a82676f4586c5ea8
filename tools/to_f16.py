#!/usr/bin/env python3
"""Stores a checkpoint's F32 tensors as F16 (IEEE half, round to nearest even), keeping names, shapes,
order and metadata, so a shipped model takes half the bytes; attnseq reads F16 exactly and computes
in f32 (docs/checkpoint-format.md). A value outside the half range (|x| > 65504) is refused, naming
the tensor, rather than turned into an infinity. Tensors that are not weights keep their bytes: a
translation model's tokenizers (U8, the SentencePiece `.model` files) and tensors already F16. An
int8 checkpoint (I8 tensors with F32 scales) is refused: F16 applies to a float model.

    /usr/bin/python3 tools/to_f16.py IN.safetensors OUT.safetensors
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch"))
from safetensors_numpy import read_safetensors_numpy  # noqa: E402


def _only(src, allowed):
    """Refuses a checkpoint with a tensor whose dtype is not in `allowed`, naming the first."""
    with open(src, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        head = json.loads(f.read(n).decode("utf-8"))
    for name, info in head.items():
        if name == "__metadata__":
            continue
        if info.get("dtype") == "I8":
            raise SystemExit(f"{src}: tensor {name} is I8: an int8 checkpoint cannot be stored as F16; "
                             "convert the float model it was quantised from")
        if info.get("dtype") not in allowed:
            raise SystemExit(f"{src}: tensor {name} has dtype {info.get('dtype')}; F32, F16 and U8 are read")


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    src, dst = argv[1], argv[2]
    with open(src, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        order = [k for k in json.loads(f.read(n).decode("utf-8")) if k != "__metadata__"]
    _only(src, ("F32", "F16", "U8"))
    arrays, metadata = read_safetensors_numpy(src)
    header, blobs, offset = ({"__metadata__": metadata} if metadata is not None else {}), [], 0
    for name in order:
        a = arrays[name]
        if a.dtype == np.uint8:  # a tokenizer's bytes, kept as they are
            b, dtype = a.tobytes(), "U8"
        else:
            a = np.asarray(a, dtype=np.float32)
            if not np.all(np.isfinite(a)) or np.max(np.abs(a), initial=0.0) > 65504.0:
                raise SystemExit(f"{src}: tensor {name} holds a value F16 cannot store (non-finite or |x| > 65504)")
            b, dtype = a.astype("<f2").tobytes(), "F16"
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)  # the data starts 8-byte aligned
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(blobs))
    os.replace(tmp, dst)
    print(f"{dst}: {len(order)} tensors as F16, {os.path.getsize(dst):,} bytes (from {os.path.getsize(src):,})")


if __name__ == "__main__":
    main(sys.argv)
