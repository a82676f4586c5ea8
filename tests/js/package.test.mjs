// The npm package as a user gets it: `npm pack`, installed from the tarball into an empty folder,
// then imported by name (ESM import and require). Also the leak check: 10,000 translations and
// 10,000 caught errors leave the wasm heap and the stack pointer where they were.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, installPacked } from './packed.mjs';

const FIXTURE = path.join(ROOT, 'tests/data/parity/gru_luong_general.safetensors');
let dir, pkg, cleanup;

before(async () => { ({ dir, pkg, cleanup } = await installPacked()); });
after(async () => { await cleanup?.(); });

test('the installed package has its files and works by name', async () => {
  const base = path.join(dir, 'node_modules/attnseq');
  for (const f of ['package.json', 'wasm/attnseq.js', 'wasm/colormap.js', 'wasm/index.d.ts', 'dist/attnseq-core.mjs', 'dist/attnseq-core.wasm', 'bin/attnseq.js'])
    assert.ok((await stat(path.join(base, f))).isFile(), f);
  const model = await pkg.loadModel(FIXTURE);
  const r = model.translate('w5 w6 w7 w8 w4', { beam: 2 });
  assert.equal(r.cols, 5);
  assert.equal(r.hypotheses.length, 2);
  assert.match(await pkg.buildInfo(), /wasm/);
  model.dispose();
});

test('the installed CLI still draws its heatmap in viridis, from the colour map the package ships', async () => {
  const base = path.join(dir, 'node_modules/attnseq');
  const { viridis } = await import(pathToFileURL(path.join(base, 'wasm/colormap.js')).href);
  // `npx attnseq` runs this file; --color forces 24-bit cells although stdout is a pipe here.
  const run = (...args) => execFileSync(process.execPath, [path.join(base, 'bin/attnseq.js'), 'translate', '-m', FIXTURE,
    '--max-length', '6', ...args, 'w5 w6 w7 w8 w4'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '' } });
  const json = JSON.parse(run('--json'));
  const cells = [...run('--color').matchAll(/\x1b\[48;2;(\d+);(\d+);(\d+)m\x1b\[38;2;[\d;]+m (?:1\.0|\.\d\d) \x1b\[0m/g)];
  assert.equal(cells.length, json.rows * json.cols);
  json.attention.flat().forEach((w, i) => assert.deepEqual(cells[i].slice(1).map(Number), viridis(w), `cell ${i}`));
});

test('require() of the installed package works (Node >= 20.19 loads ES modules synchronously)', async () => {
  const require = createRequire(path.join(dir, 'x.cjs'));
  const cjs = require('attnseq');
  assert.equal(typeof cjs.loadModel, 'function');
  const model = await cjs.loadModel(await readFile(FIXTURE));
  assert.ok(model.translate('w5 w6').tokens.length > 0);
  model.dispose();
});

test('10,000 translations and 10,000 caught errors leak nothing', async () => {
  const model = await pkg.loadModel(FIXTURE);
  const enc = model.encode('w5 w6 w7');
  const work = () => {
    model.translate(enc, { maxLength: 6 });
    try { model.translate([4, 5, 999]); } catch (e) { if (e.code !== 'BAD_INPUT') throw e; }
  };
  for (let i = 0; i < 200; i++) work();  // warm-up: allocator free lists, Embind caches
  const before = await pkg.memoryStats();
  for (let i = 0; i < 10000; i++) work();
  const after = await pkg.memoryStats();
  assert.equal(after.stackPointer, before.stackPointer, 'stack pointer moved');
  assert.equal(after.heapBytes, before.heapBytes, `heap grew by ${after.heapBytes - before.heapBytes} bytes`);
  // A step loop and its errors too.
  const dec = model.decoder(enc, { maxLength: 3 });
  const badStep = () => { try { dec.step({ attention: [0, 0, 0] }); } catch (e) { if (e.code !== 'BAD_INPUT') throw e; } };
  for (let i = 0; i < 100; i++) badStep();  // warm-up: the decoder keeps its last error's text
  const b2 = await pkg.memoryStats();
  for (let i = 0; i < 10000; i++) badStep();
  const a2 = await pkg.memoryStats();
  assert.equal(a2.stackPointer, b2.stackPointer);
  assert.equal(a2.heapBytes, b2.heapBytes);
  dec.dispose(); enc.dispose(); model.dispose();
});

test('README.md\'s package sizes are the packed package\'s, within 1 KB (tools/package_sizes.mjs writes them)', async () => {
  const { measure, locate } = await import('../../tools/package_sizes.mjs');
  const text = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const [a, b] = locate(text);
  const written = text.slice(a, b).replace(/\s+/g, ' ');
  const m = measure();
  const figures = (re) => { const x = re.exec(written); assert.ok(x, `${re} in "${written}"`); return x.slice(1).map(Number); };
  const near = (got, bytes, what) => assert.ok(Math.abs(got - bytes / 1000) <= 1, `${what}: README says ${got} KB, measured ${(bytes / 1000).toFixed(1)} KB: run node tools/package_sizes.mjs --write`);
  const [tarball, unpacked, files] = figures(/tarball (\d+) KB \((\d+) KB unpacked, (\d+) files\)/);
  near(tarball, m.tarball, 'tarball');
  near(unpacked, m.unpacked, 'unpacked');
  assert.equal(files, m.files);
  for (const [f, bytes, gz] of m.each) {
    const [kb, gzkb] = figures(new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\d+) KB \\((\\d+) KB gzipped\\)`));
    near(kb, bytes, f);
    near(gzkb, gz, `${f} gzipped`);
  }
});

test('README.md (which the package ships) links only to files the package has', async () => {
  const text = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const shipped = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')).files;
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((x) => x[1]).filter((l) => !/^[a-z]+:/.test(l) && !l.startsWith('#'));
  for (const l of links) assert.ok(shipped.includes(l.split('#')[0]), `README.md links to ${l}, which the package does not ship`);
});
