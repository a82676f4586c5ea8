// The npm package in Chromium as users get it: `npm pack`, installed from the tarball into an empty
// folder, and served from there (no file of the repository's wasm/ or dist/ is reachable). A module
// Worker uses it with the .wasm at its default place; a page relocates the .wasm with
// init({ locateFile }); a page hands init({ wasmBinary }) bytes it fetched itself while no .wasm is
// served at the default place; a pool of two module Workers (createPool) gets the .wasm bytes from the
// page's engine loader. Each translates the fixture exactly as the same package does in Node,
// alone and with translateBatch() (whose first result is bit for bit the translate() of the same input).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, watch } from './helpers.mjs';
import { CSP } from '../../scripts/serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = path.join(ROOT, 'tests/browser/pages');
const FIXTURES = path.join(ROOT, 'tests/data/parity');
const SOURCE = 'w5 w6 w7 w8 w4';                      // what the pages translate (pages/package-page.js)
const BATCH_EXTRA = 'w6 w7 w8';                       // and translateBatch([SOURCE, BATCH_EXTRA])
const DEFAULT_WASM = '/node_modules/attnseq/dist/attnseq-core.wasm';
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

let dir, pkgDir, browser, expected;

before(async () => {
  if (!existsSync(path.join(ROOT, 'dist/attnseq-core.wasm')))
    throw new Error('dist/attnseq-core.wasm is missing, so the tarball would lack the engine: run `bash scripts/build.sh` first');
  dir = await mkdtemp(path.join(os.tmpdir(), 'attnseq-browser-pkg-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }))[0];
  const files = packed.files.map((f) => f.path);
  for (const f of ['wasm/attnseq.js', 'dist/attnseq-core.mjs', 'dist/attnseq-core.wasm']) assert.ok(files.includes(f), `the tarball has ${f}: ${files}`);
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(dir, packed.filename)], { cwd: dir, stdio: 'pipe' });
  pkgDir = path.join(dir, 'node_modules/attnseq');
  // Node's answer, from the same installed package.
  const { loadModel } = await import(pathToFileURL(path.join(pkgDir, 'wasm/attnseq.js')).href);
  const model = await loadModel(await readFile(path.join(FIXTURES, 'gru_luong_general.safetensors')));
  const r = model.translate(SOURCE);
  expected = { tokens: r.tokens, attention: Array.from(r.attention), batch: model.translateBatch([SOURCE, BATCH_EXTRA]).map((x) => x.tokens) };
  assert.notDeepEqual(expected.batch[1], expected.batch[0], 'the two inputs translate differently');
  model.dispose();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Serves only the consumer's node_modules/, the test pages and the fixtures (plus `files`, extra
// paths -> files), with the demo's Content-Security-Policy; `missing` paths answer 404. Logs every
// request path, and the ones that got a 404.
async function serve({ files = {}, missing = [] } = {}) {
  const mounts = [['/node_modules/', path.join(dir, 'node_modules')], ['/pages/', PAGES], ['/fixtures/', FIXTURES]];
  const requests = [], notFound = [];
  const server = http.createServer(async (req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    requests.push(p);
    let file = files[p];
    const mount = mounts.find(([prefix]) => p.startsWith(prefix));
    if (!file && mount && !missing.includes(p)) {
      const f = path.resolve(mount[1], '.' + p.slice(mount[0].length - 1));
      if (f.startsWith(mount[1] + path.sep)) file = f;
    }
    let body = null;
    if (file) body = await readFile(file).catch(() => null);
    if (!body) {
      notFound.push(p);
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}`, requests, notFound, close: () => server.close() };
}

async function runPage(srv, mode) {
  const page = await browser.ctx.newPage();
  const problems = watch(page);
  await page.goto(`${srv.base}/pages/package.html?mode=${mode}`);
  await page.waitForFunction(() => document.getElementById('out').dataset.done === '1', null, { timeout: 30000, polling: 100 });
  const res = JSON.parse(await page.textContent('#out'));
  await page.close();
  return { res, problems };
}

function sameAsNode(res, what) {
  assert.equal(res.error, undefined, `${what}: ${res.error}`);
  assert.deepEqual(res.tokens, expected.tokens, `${what}: tokens`);
  assert.equal(res.attention.length, expected.attention.length, `${what}: attention size`);
  res.attention.forEach((w, i) => assert.ok(Math.abs(w - expected.attention[i]) <= 1e-6, `${what}: attention[${i}] ${w} vs ${expected.attention[i]}`));
  assert.deepEqual(res.batch, expected.batch, `${what}: translateBatch tokens`);
  assert.deepEqual(res.batchAttention, res.attention, `${what}: translateBatch's first attention is translate()'s, bit for bit`);
}

test('a module Worker imports the installed package and finds the .wasm at its default place', async () => {
  const srv = await serve();
  try {
    const { res, problems } = await runPage(srv, 'worker');
    sameAsNode(res, 'worker');
    assert.ok(srv.requests.includes('/pages/package-worker.js'), 'the worker ran');
    assert.ok(srv.requests.includes('/node_modules/attnseq/wasm/attnseq.js'));
    assert.ok(srv.requests.includes(DEFAULT_WASM), `the .wasm came from the package: ${srv.requests}`);
    assert.deepEqual(srv.notFound, []);
    assert.deepEqual(problems, []);
  } finally { srv.close(); }
});

test('init({ locateFile }) loads the .wasm from /elsewhere/core.wasm while the default place answers 404', async () => {
  const srv = await serve({ files: { '/elsewhere/core.wasm': path.join(pkgDir, 'dist/attnseq-core.wasm') }, missing: [DEFAULT_WASM] });
  try {
    const { res, problems } = await runPage(srv, 'locate');
    sameAsNode(res, 'locateFile');
    // Chromium compiles relaxed SIMD, so the relaxed products' module is asked for too; this
    // locateFile gives the engine's own file for it, which is then not read a second time.
    assert.deepEqual(res.asked, ['attnseq-core.wasm', 'attnseq-relaxed.wasm'], 'locateFile is asked for each file by name');
    assert.match(res.build, /relaxed SIMD: attnseq-relaxed.wasm could not be read: init's locateFile gave the engine's own file \(\/elsewhere\/core.wasm\) for it\)$/);
    assert.equal(srv.requests.filter((p) => p === '/elsewhere/core.wasm').length, 1, `requests: ${srv.requests}`);
    assert.ok(!srv.requests.includes(DEFAULT_WASM), `the default .wasm was requested: ${srv.requests}`);
    assert.deepEqual(srv.notFound, []);
    assert.deepEqual(problems, []);
  } finally { srv.close(); }
});

test('createPool: two module Workers translate a batch as Node does, from the .wasm bytes init({ locateFile }) pointed the pool to', async () => {
  const srv = await serve({ files: { '/elsewhere/core.wasm': path.join(pkgDir, 'dist/attnseq-core.wasm') }, missing: [DEFAULT_WASM] });
  try {
    const { res, problems } = await runPage(srv, 'pool');
    sameAsNode(res, 'pool');
    assert.equal(res.workers, 2);
    assert.equal(srv.requests.filter((p) => p === '/node_modules/attnseq/wasm/pool-worker.js').length, 2, `both Workers ran the package's pool-worker.js: ${srv.requests}`);
    assert.equal(srv.requests.filter((p) => p === '/elsewhere/core.wasm').length, 1, `the pool read the .wasm once and handed it on: ${srv.requests}`);
    assert.ok(!srv.requests.includes(DEFAULT_WASM), `the default .wasm was requested: ${srv.requests}`);
    assert.deepEqual(srv.notFound, []);
    assert.deepEqual(problems, []);
  } finally { srv.close(); }
});

test('createPool rejects with WORKER, naming the cause, when pool-worker.js cannot be loaded; the package still translates', async () => {
  const srv = await serve({ missing: ['/node_modules/attnseq/wasm/pool-worker.js'] });
  try {
    const page = await browser.ctx.newPage();
    await page.goto(`${srv.base}/pages/package.html?mode=pool-missing`);
    await page.waitForFunction(() => document.getElementById('out').dataset.done === '1', null, { timeout: 30000, polling: 100 });
    const res = JSON.parse(await page.textContent('#out'));
    await page.close();
    assert.equal(res.error, undefined, res.error);
    assert.equal(res.code, 'WORKER');
    assert.match(res.message, /^a pool Worker failed: /);
    assert.deepEqual(res.tokens, expected.tokens);
    assert.ok(srv.notFound.includes('/node_modules/attnseq/wasm/pool-worker.js'), `the Worker script was asked for: ${srv.requests}`);
  } finally { srv.close(); }
});

test('init({ wasmBinary }) uses the bytes the page fetched; the default .wasm URL is never requested', async () => {
  const srv = await serve({ files: { '/elsewhere/core.wasm': path.join(pkgDir, 'dist/attnseq-core.wasm') }, missing: [DEFAULT_WASM] });
  try {
    const { res, problems } = await runPage(srv, 'binary');
    sameAsNode(res, 'wasmBinary');
    assert.equal(srv.requests.filter((p) => p === '/elsewhere/core.wasm').length, 1, `only the page's own fetch: ${srv.requests}`);
    assert.ok(!srv.requests.includes(DEFAULT_WASM), `the default .wasm was requested: ${srv.requests}`);
    assert.deepEqual(srv.notFound, []);
    assert.deepEqual(problems, []);
    // The default place really is empty here (so loading from it would have failed).
    assert.equal((await fetch(srv.base + DEFAULT_WASM)).status, 404);
  } finally { srv.close(); }
});
