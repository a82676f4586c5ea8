// The ladder of docs/architecture.md holds for the repository (tools/check_ladder.mjs), and the check
// finds what reaches up: an include, a static or dynamic import, a Worker's URL, in either ladder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, readLadders } from '../../tools/check_ladder.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-ladder-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

test('every #include and import of src/, wasm/ and web/ points down the ladder', () => {
  const bad = check(ROOT);
  assert.deepEqual(bad.map((b) => `${b.file}:${b.line} ${b.spec} (${b.from} -> ${b.to})`), []);
  // The ladders are the document's: the C++ rungs in order, then the page's.
  const [main, page] = readLadders(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
  assert.deepEqual(main.map((r) => r.name), ['core', 'kernels', 'nn', 'model', 'decode', 'train', 'cli', 'wasm', 'web']);
  assert.deepEqual(page.map((r) => r.name), ['views', 'workers', 'controller', 'app']);
});

test('the check names each reference that reaches up, and passes the ones that point down', () => {
  const files = {
    'docs/architecture.md': readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'),
    'src/nn/layers.hpp': '#pragma once\n#include "core/enums.hpp"\n#include "model/config.hpp"\n',
    'src/model/config.hpp': '#pragma once\n#include "nn/layers.hpp"\n#include "local.hpp"\n',
    'src/model/local.hpp': '#pragma once\n',
    'src/core/enums.hpp': '#pragma once\n#include <string>\n',
    'wasm/attnseq.js': "import x from '../dist/attnseq-core.mjs';\nconst w = new URL('../web/worker.js', import.meta.url);\n",
    'web/views/dom.js': "export const a = 1;\nconst c = await import('../controller/state.js');\n",
    'web/controller/state.js': "import { a } from '../views/dom.js';\nimport '../app.js';\n",
    'web/app.js': "import { a } from './views/dom.js';\nimport * as w from '../wasm/attnseq.js';\n",
  };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(TMP, f)), { recursive: true });
    writeFileSync(path.join(TMP, f), text);
  }
  const found = check(TMP).map((b) => `${b.file}:${b.line} ${b.spec} ${b.from}->${b.to}`).sort();
  assert.deepEqual(found, [
    'src/nn/layers.hpp:3 model/config.hpp nn->model',
    'wasm/attnseq.js:2 ../web/worker.js wasm->web',
    'web/controller/state.js:2 ../app.js controller->app',
    'web/views/dom.js:2 ../controller/state.js views->controller',
  ]);
  // The command line: each on its own line, exit 1.
  const r = spawnSync(process.execPath, [path.join(ROOT, 'tools/check_ladder.mjs'), TMP], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^src\/nn\/layers\.hpp:3: 'model\/config\.hpp' reaches up from nn to model$/m);
  assert.match(r.stdout, /ladder: 4 reference\(s\) reach up/);
});

test('a ladder rung without a path, or a document without a ladder, is refused', () => {
  assert.throws(() => readLadders('```ladder\ncore   what every rung uses\n```\n'), /ladder rung 'core' names no path/);
  assert.throws(() => readLadders('# no ladder here\n'), /no ```ladder block/);
});
