#!/usr/bin/env bash
# Checks a natively dispatched binary: every instruction that needs AVX (VEX/EVEX encodings, ymm/zmm
# or mask registers) lies in a function compiled for an AVX arch (its name mentions avx), so the
# SSE2 path never calls a copy of a shared inline function that the linker took from an AVX unit.
# Usage: vex_isolation.sh BINARY. Fails if it finds a leak, or finds no AVX code at all.
set -euo pipefail
bin="$1"
command -v objdump >/dev/null || { echo "objdump (binutils) is required" >&2; exit 1; }
objdump -d --no-show-raw-insn -C "$bin" | awk '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn); next }
  /^ +[0-9a-f]+:\t/ {
    split($0, p, "\t"); ins = p[2]
    if (ins ~ /^v[a-z]/ || ins ~ /%[yz]mm|%k[0-7]/) { if (fn ~ /avx/) ok[fn] = 1; else bad[fn]++ }
  }
  END {
    n = 0; for (f in ok) n++
    leaks = 0; for (f in bad) { print "AVX instructions outside an AVX unit: " bad[f] " in " f; leaks++ }
    print n " AVX functions, " leaks " functions with leaked AVX instructions"
    exit (leaks > 0 || n == 0) ? 1 : 0
  }'
