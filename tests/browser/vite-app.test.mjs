// The npm package in an app built for production by Vite with its defaults (no config file): the
// tarball (`npm pack`) installed into an empty folder beside a small app (tests/browser/pages/vite-app/),
// `vite build`, and the built dist/ served on its own (nothing of this repository reachable) under
// the demo's Content-Security-Policy and run in Chromium. The build must finish without a warning (no
// Node module externalised into the browser bundle), and the app must translate as Node does with the
// same package: on its own thread and on a pool of two Workers bundled by Vite.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createLogger } from 'vite';
import { launch, watch } from './helpers.mjs';
import { installPacked } from '../js/packed.mjs';
import { CSP, TYPES } from '../../scripts/serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const APP = path.join(ROOT, 'tests/browser/pages/vite-app');
const FIXTURE = path.join(ROOT, 'tests/data/parity/gru_luong_general.safetensors');
const SOURCE = 'w5 w6 w7 w8 w4', EXTRA = 'w6 w7 w8';  // what main.js translates

let installed, browser, expected;
const warnings = [];

before(async () => {
  if (!existsSync(path.join(ROOT, 'dist/attnseq-core.wasm')))
    throw new Error('dist/attnseq-core.wasm is missing, so the tarball would lack the engine: run `bash scripts/build.sh` first');
  installed = await installPacked();
  const { dir, pkg } = installed;
  await cp(APP, dir, { recursive: true });
  await mkdir(path.join(dir, 'public'));
  await cp(FIXTURE, path.join(dir, 'public/model.safetensors'));
  const model = await pkg.loadModel(await readFile(FIXTURE));
  const r = model.translate(SOURCE);
  expected = { tokens: r.tokens, attention: Array.from(r.attention), batch: model.translateBatch([SOURCE, EXTRA]).map((x) => x.tokens) };
  assert.notDeepEqual(expected.batch[1], expected.batch[0], 'the two inputs translate differently');
  model.dispose();
  // Vite's defaults; only its messages are collected instead of printed.
  const logger = createLogger('warn');
  const customLogger = { ...logger, warn: (msg) => warnings.push(msg), warnOnce: (msg) => warnings.push(msg) };
  await build({ root: dir, configFile: false, customLogger, logLevel: 'warn' });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await installed?.cleanup();
});

/** Serves the built app's dist/ alone, with the demo's headers. */
async function serveDist(dist) {
  const server = http.createServer(async (req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    const file = path.resolve(dist, '.' + (p.endsWith('/') ? p + 'index.html' : p));
    const body = file.startsWith(dist + path.sep) ? await readFile(file).catch(() => null) : null;
    if (!body) {
      res.writeHead(404, { 'Content-Security-Policy': CSP });
      return res.end('not found');
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff' });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

test('vite build with the defaults succeeds without a warning and bundles the engine and the pool Worker', async () => {
  assert.deepEqual(warnings, []);
  const assets = await readdir(path.join(installed.dir, 'dist/assets'));
  assert.ok(assets.some((f) => /^attnseq-core-.*\.wasm$/.test(f)), `the .wasm is an asset: ${assets}`);
  assert.ok(assets.some((f) => /^pool-worker-.*\.js$/.test(f)), `the pool Worker is bundled: ${assets}`);
  for (const f of assets.filter((a) => a.endsWith('.js')))
    assert.doesNotMatch(await readFile(path.join(installed.dir, 'dist/assets', f), 'utf8'), /__vite-browser-external/, `${f} holds an externalised Node module`);
});

test('the built app translates in Chromium as Node does: translate, translateBatch and a pool of two Workers', async () => {
  const srv = await serveDist(path.join(installed.dir, 'dist'));
  try {
    const page = await browser.ctx.newPage();
    const problems = watch(page);
    await page.goto(`${srv.base}/`);
    await page.waitForFunction(() => document.getElementById('out').dataset.done === '1', null, { timeout: 30000, polling: 100 });
    const res = JSON.parse(await page.textContent('#out'));
    await page.close();
    assert.equal(res.error, undefined, res.error);
    assert.deepEqual(res.tokens, expected.tokens);
    assert.equal(res.attention.length, expected.attention.length);
    res.attention.forEach((w, i) => assert.ok(Math.abs(w - expected.attention[i]) <= 1e-6, `attention[${i}] ${w} vs ${expected.attention[i]}`));
    assert.deepEqual(res.batch, expected.batch);
    assert.deepEqual(res.batchAttention, res.attention, "translateBatch's first attention is translate()'s, bit for bit");
    assert.equal(res.workers, 2);
    assert.deepEqual(res.pooled, expected.batch);
    assert.deepEqual(res.pooledAttention, res.attention, "the pool's first attention is translate()'s, bit for bit");
    assert.deepEqual(problems, []);
  } finally { srv.close(); }
});
