#!/usr/bin/env bash
# `npm start`: install what is missing, build the WebAssembly module, serve the demo on 127.0.0.1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs "$@"
