#!/usr/bin/env bash
# Installs everything attnseq needs on a Debian 12 machine, as root, idempotently:
# Debian packages (Emscripten 3.1.6, wabt, doctest, clang for fuzzing, clang-19 and lld-19 for the
# relaxed-SIMD module (wasm/CMakeLists.txt), clang-format 14 for the house
# style, Chromium, a Hangul font, numpy for the float64 check of the parity fixtures, SentencePiece's
# spm_train and Python module for the subword fixtures (tests/data/spm/make_fixtures.sh; the engine
# never links them)),
# the private header-only xsimd 13 (from Debian trixie, unpacked into third_party/, never installed
# system-wide), and the npm dev dependencies (onnxruntime-web among them, for bench/ort.sh). Fast when
# everything is already there.
#   bash scripts/setup.sh           what the build and `npm test` need
#   bash scripts/setup.sh --bench   also what the benchmarks need: python3-torch (the PyTorch twin, which
#                                   bench/ort.sh exports the ONNX graphs with, and bench/train.sh's
#                                   trainer) and libopenblas0-pthread (its BLAS); `npm test` needs neither
set -euo pipefail
BENCH=0
for arg in "$@"; do
  case "$arg" in
    --bench) BENCH=1 ;;
    *) echo "usage: bash scripts/setup.sh [--bench]" >&2; exit 2 ;;
  esac
done
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '[setup] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# --- Debian packages -------------------------------------------------------------------------
PKGS=(emscripten wabt doctest-dev cmake g++ clang clang-19 lld-19 clang-format-14 libclang-rt-14-dev llvm-14 chromium fonts-nanum ca-certificates python3-numpy sentencepiece python3-sentencepiece)
if [ "$BENCH" = 1 ]; then PKGS+=(python3-torch libopenblas0-pthread); fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

debian_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /-security/ && $i ~ /\/debian\/?$/) { print $i; exit } }' "$f"
  done | head -n1 | grep . && return 0
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i !~ /-security/) { print $i; exit } }' | head -n1
}

# --- xsimd 13, private ------------------------------------------------------------------------
XSIMD_VER=13.2.0-1
XDIR="$ROOT/third_party/xsimd"
if [ ! -f "$XDIR/usr/include/xsimd/arch/xsimd_wasm.hpp" ]; then
  log "fetching libxsimd-dev=$XSIMD_VER from Debian trixie (private apt state, system sources untouched)"
  A="$ROOT/third_party/.apt"
  mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
  # The mirror this machine is already set up for: the first Debian archive URI of its own apt sources
  # (deb822 `URIs:` lines, or one-line `deb` entries), never a host written into this repository.
  MIRROR="$(debian_mirror)"
  [ -n "$MIRROR" ] || { log "no Debian archive found in /etc/apt/sources.list{,.d/}: cannot fetch xsimd 13"; exit 1; }
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" > "$A/sources.list"
  OPTS=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o APT::Sandbox::User=root)
  apt-get "${OPTS[@]}" update -qq
  (cd "$A" && apt-get "${OPTS[@]}" download "libxsimd-dev=$XSIMD_VER" >/dev/null)
  rm -rf "$XDIR"; mkdir -p "$XDIR"
  dpkg -x "$A"/libxsimd-dev_*.deb "$XDIR"
  rm -rf "$A"
fi
# doctest for the wasm build: a private copy, because -I/usr/include would pull glibc headers into wasm.
DDIR="$ROOT/third_party/doctest/doctest"
if [ ! -f "$DDIR/doctest.h" ]; then
  mkdir -p "$DDIR"; cp /usr/include/doctest/doctest.h "$DDIR/doctest.h"
fi

# --- npm ----------------------------------------------------------------------------------------
if [ -f package.json ]; then
  if [ ! -d node_modules ] || [ package.json -nt node_modules/.setup-stamp ] || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.setup-stamp ]; }; then
    log "installing npm packages"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
    touch node_modules/.setup-stamp
  fi
fi
log "ok"
