#!/usr/bin/env python3
"""Writes tests/nn/reference/golden.safetensors, the safetensors file tests/nn/checkpoint_test.cpp
reads and checks value by value.

python3 and numpy only (no torch, no safetensors package): the file is laid out here as the
reference implementation (huggingface/safetensors) lays it out, so that the test reads a file
staticpy's writer did not make:

- 8 bytes: the header's length N, unsigned little-endian;
- N bytes: the header, compact JSON (serde_json's separators, UTF-8 unescaped), "__metadata__"
  first, then the tensors in the order of their data, padded with spaces to a multiple of 8;
- the tensors' bytes, little-endian and row-major, each right after the previous one, ordered by
  descending dtype (the reference's Dtype enum order, its alignment order), then by name.

Every dtype staticpy reads is there (F16, BF16, I8 and I16 load widened), with the values that
catch a wrong conversion (extremes, subnormals, infinities, NaN, negative zero), a 0-dim tensor, an
empty one, a name outside ASCII and metadata.

    python3 scripts/make_safetensors_golden.py            # rewrites the committed file
"""

import json
import os
import struct

import numpy as np

# The reference's Dtype enum, in order; its writers sort by descending position.
DTYPE_ORDER = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
               "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32",
               "C64", "F64", "I64", "U64"]

NUMPY_DTYPES = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "I16": np.int16,
                "F16": np.float16, "I32": np.int32, "F32": np.float32, "F64": np.float64,
                "I64": np.int64}


def bf16_bits(values):
    """bfloat16 (numpy has none) as its raw 16-bit patterns: the top half of a float32, values
    chosen to be exact."""
    bits = np.array(values, dtype=np.float32).view(np.uint32)
    assert np.all(bits & 0xFFFF == 0), "not exactly representable in bfloat16"
    return (bits >> 16).astype("<u2")


def tensors():
    """name -> (dtype, array): what the test checks (tests/nn/checkpoint_test.cpp)."""
    return {
        "f64": ("F64", np.array([1.0 / 3.0, -np.inf, np.nan, -0.0, 5e-324,
                                 1.7976931348623157e308])),
        "f32": ("F32", np.array([[0.0, 1.5, -2.25],
                                 [3.4028234663852886e38, -0.0, 1.401298464324817e-45]],
                                dtype=np.float32)),
        "f16": ("F16", np.array([[1.0, -2.5], [65504.0, 2.0 ** -24], [np.inf, -0.0]],
                                dtype=np.float16)),
        "bf16": ("BF16", bf16_bits([1.0, -3.5, 3.3895313892515355e38, 2.0 ** -133])),
        "i64": ("I64", np.array([-(2 ** 63), 2 ** 63 - 1, 0], dtype=np.int64)),
        "i32": ("I32", np.array([[-(2 ** 31), 2 ** 31 - 1], [0, -1]], dtype=np.int32)),
        "i16": ("I16", np.array([-32768, 32767, -1], dtype=np.int16)),
        "unicode.\u00fc": ("I8", np.array([-128, 127, 0, -1], dtype=np.int8)),
        "u8": ("U8", np.array([[[0, 255]], [[7, 128]]], dtype=np.uint8)),
        "bool": ("BOOL", np.array([True, False, True], dtype=np.bool_)),
        "scalar": ("F32", np.array(42.5, dtype=np.float32)),
        "empty": ("F32", np.zeros((0, 3), dtype=np.float32)),
    }


METADATA = {"format": "pt", "source": "scripts/make_safetensors_golden.py"}


def serialize(named, metadata):
    """The reference's serialize(): the file's bytes."""
    order = sorted(named, key=lambda name: (-DTYPE_ORDER.index(named[name][0]), name.encode()))
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for name in order:
        dtype, array = named[name]
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes(order="C")
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def main():
    named = tensors()
    for dtype, array in named.values():
        if dtype != "BF16":
            assert array.dtype == NUMPY_DTYPES[dtype], (dtype, array.dtype)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "nn",
                       "reference", "golden.safetensors")
    with open(out, "wb") as f:
        f.write(serialize(named, METADATA))
    print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    main()
