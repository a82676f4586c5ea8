// A separate instance of the package, with an engine of its own, not yet initialised: what a test of
// init() or of the engine's memory needs. An ES module is one per URL, and the package is several
// modules (wasm/attnseq.js gathers them), so a query on the entry's URL would share the others: each
// instance is a copy of wasm/ and dist/ in a temporary folder, removed when the process exits.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const made = [];
process.on('exit', () => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

export async function freshPackage() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-fresh-'));
  made.push(dir);
  for (const d of ['wasm', 'dist']) cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
  return import(pathToFileURL(path.join(dir, 'wasm/attnseq.js')).href);
}
