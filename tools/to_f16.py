#!/usr/bin/env python3
"""Stores a checkpoint's F32 tensors as F16 (IEEE half, round to nearest even), keeping names, shapes,
order and metadata, so a shipped model takes half the bytes; attnseq reads F16 exactly and computes
in f32 (docs/checkpoint-format.md). A value outside the half range (|x| > 65504) is refused, naming
the tensor, rather than turned into an infinity.

    /usr/bin/python3 tools/to_f16.py IN.safetensors OUT.safetensors
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch"))
from safetensors_numpy import read_safetensors_numpy  # noqa: E402


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    src, dst = argv[1], argv[2]
    with open(src, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        order = [k for k in json.loads(f.read(n).decode("utf-8")) if k != "__metadata__"]
    arrays, metadata = read_safetensors_numpy(src)
    header, blobs, offset = ({"__metadata__": metadata} if metadata is not None else {}), [], 0
    for name in order:
        a = np.asarray(arrays[name], dtype=np.float32)
        if not np.all(np.isfinite(a)) or np.max(np.abs(a), initial=0.0) > 65504.0:
            raise SystemExit(f"{src}: tensor {name} holds a value F16 cannot store (non-finite or |x| > 65504)")
        b = a.astype("<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
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
