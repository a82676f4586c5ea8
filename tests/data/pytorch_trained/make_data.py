#!/usr/bin/env python3
"""Writes data.tsv next to this file: 200 distinct random words of 3-6 letters from a..l, each with
its reversal (`abcd<TAB>dcba`). Deterministic (Python's random.Random(seed) is stable across versions)."""
import os
import random

rng = random.Random(20240611)
words = []
while len(words) < 200:
    w = "".join(rng.choice("abcdefghijkl") for _ in range(rng.randint(3, 6)))
    if w not in words:
        words.append(w)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data.tsv"), "w") as f:
    f.writelines(f"{w}\t{w[::-1]}\n" for w in words)
