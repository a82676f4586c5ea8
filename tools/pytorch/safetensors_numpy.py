"""A torch-free reader of the .safetensors files attnseq writes (F32 and F16), so that the float64
numpy re-derivation (check_fixtures.py) needs only numpy, and the twin (attnseq_twin.py) reads files
the same way."""
import json
import struct

import numpy as np


def read_safetensors_numpy(path: str):
    """Returns (arrays {name: float32 numpy array; uint8 for U8 bytes such as a tokenizer}, metadata dict
    or None); checks sizes and offsets."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{path}: {len(raw)} bytes, too short for a header length")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError(f"{path}: header length {n} exceeds file size {len(raw)}")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", None)
    data = raw[8 + n:]
    dtypes = {"F32": "<f4", "F16": "<f2", "U8": "u1"}
    tensors = {}
    for name, info in header.items():
        if info["dtype"] not in dtypes:
            raise ValueError(f"{name}: dtype {info['dtype']} not supported by the twin")
        a, b = info["data_offsets"]
        count = int(np.prod(info["shape"])) if info["shape"] else 1
        if not (0 <= a <= b <= len(data)) or b - a != count * np.dtype(dtypes[info["dtype"]]).itemsize:
            raise ValueError(f"{name}: offsets [{a}, {b}] bad for shape {info['shape']} in {len(data)} data bytes")
        arr = np.frombuffer(data[a:b], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
        if info["dtype"] != "U8":
            arr = arr.astype(np.float32)
        tensors[name] = arr.copy()
    return tensors, metadata
