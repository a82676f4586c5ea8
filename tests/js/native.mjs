// The native command line as the Node suites run it: its path (build/native/attnseq, which
// scripts/test.sh builds, or $ATTNSEQ_NATIVE_CLI) and the check that fails a test with the build
// command when it is missing, never skips it.
import assert from 'node:assert/strict';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NATIVE_CLI = process.env.ATTNSEQ_NATIVE_CLI ? path.resolve(process.env.ATTNSEQ_NATIVE_CLI) : path.join(ROOT, 'build/native/attnseq');

export function requireNativeCli() {
  try {
    accessSync(NATIVE_CLI, constants.X_OK);
  } catch {
    assert.fail(`the native CLI ${NATIVE_CLI} is missing or not executable: build it with ` +
      '`cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native --target attnseq` ' +
      '(or point ATTNSEQ_NATIVE_CLI at it)');
  }
}
