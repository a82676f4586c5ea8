#!/usr/bin/env bash
# The relaxed-SIMD module shares the engine's memory but not its allocator or stack: it must hold no
# data segment and never read or move a global (the stack pointer is one). The wasm build runs this
# on attnseq-relaxed.wasm (wasm/CMakeLists.txt) and fails if it does either.
#   bash scripts/check-relaxed-module.sh FILE.wasm
set -euo pipefail
f=$1
if wasm-objdump -h "$f" | grep -q ' Data '; then echo "$f holds a data segment" >&2; exit 1; fi
if wasm-objdump -d "$f" | grep -q 'global[.]'; then echo "$f uses a global (a stack)" >&2; exit 1; fi
n=$(wasm-objdump -d "$f" | grep -c 'relaxed_madd' || true)
if [ "$n" = 0 ]; then echo "$f has no f32x4.relaxed_madd" >&2; exit 1; fi
