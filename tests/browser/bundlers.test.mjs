// The npm package in an app built for production by Vite and by webpack, each with its defaults (no
// configuration file): the tarball (`npm pack`) installed into an empty folder beside a small app
// (tests/browser/pages/bundled-app/), built, and the build's output served on its own (nothing of
// this repository reachable) under the demo's Content-Security-Policy and run in Chromium. A build
// must finish without a warning (no Node module externalised into the browser bundle; webpack's one
// is its size hint for the .wasm), and the app must translate as Node does with the same package: on
// its own thread and on a pool of two Workers bundled by the bundler.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createLogger } from 'vite';
import webpack from 'webpack';
import { launch, watch } from './helpers.mjs';
import { installPacked } from '../js/packed.mjs';
import { CSP, TYPES } from '../../scripts/serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const APP = path.join(ROOT, 'tests/browser/pages/bundled-app');
const FIXTURE = path.join(ROOT, 'tests/data/parity/gru_luong_general.safetensors');
const SOURCE = 'w5 w6 w7 w8 w4', EXTRA = 'w6 w7 w8';  // what main.js translates

let installed, browser, expected;

before(async () => {
  if (!existsSync(path.join(ROOT, 'dist/attnseq-core.wasm')))
    throw new Error('dist/attnseq-core.wasm is missing, so the tarball would lack the engine: run `bash scripts/build.sh` first');
  installed = await installPacked();
  const model = await installed.pkg.loadModel(await readFile(FIXTURE));
  const r = model.translate(SOURCE);
  expected = { tokens: r.tokens, attention: Array.from(r.attention), batch: model.translateBatch([SOURCE, EXTRA]).map((x) => x.tokens) };
  assert.notDeepEqual(expected.batch[1], expected.batch[0], 'the two inputs translate differently');
  model.dispose();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await installed?.cleanup();
});

/** A folder beside the installed package holding the app: { dir, ... }. */
async function appDir(name) {
  const dir = path.join(installed.dir, name);
  await cp(APP, dir, { recursive: true });
  return dir;
}

/** Vite's defaults; its messages are collected instead of printed. Returns { out, warnings }. */
async function viteBuild() {
  const dir = await appDir('vite');
  await mkdir(path.join(dir, 'public'));
  await cp(FIXTURE, path.join(dir, 'public/model.safetensors'));
  const warnings = [];
  const logger = createLogger('warn');
  const customLogger = { ...logger, warn: (msg) => warnings.push(msg), warnOnce: (msg) => warnings.push(msg) };
  await build({ root: dir, configFile: false, customLogger, logLevel: 'warn' });
  return { out: path.join(dir, 'dist'), warnings };
}

/**
 * webpack's defaults (entry src/index.js, output dist/main.js, production), as `npx webpack` in the app's
 * folder has them (its output folder is the working directory's dist/: named here), and a page to run it.
 */
async function webpackBuild() {
  const dir = await appDir('webpack');
  await mkdir(path.join(dir, 'src'));
  await cp(path.join(dir, 'main.js'), path.join(dir, 'src/index.js'));
  const stats = await new Promise((resolve, reject) =>
    webpack({ context: dir, mode: 'production', output: { path: path.join(dir, 'dist') } }, (e, s) => (e ? reject(e) : resolve(s))));
  const info = stats.toJson({ all: false, errors: true, warnings: true });
  assert.deepEqual(info.errors, [], 'webpack errors');
  const out = path.join(dir, 'dist');
  await cp(FIXTURE, path.join(out, 'model.safetensors'));
  await cp(path.join(dir, 'index.html'), path.join(out, 'index.html'));  // it loads ./main.js, webpack's default output
  // The .wasm is larger than webpack's 244 KiB performance hint; that is the only warning allowed.
  return { out, warnings: info.warnings.filter((w) => !/exceed the recommended size limit|can impact web performance/.test(w.message)).map((w) => w.message) };
}

/** Serves a build's output folder alone, with the demo's headers. */
async function serveDir(dir) {
  const server = http.createServer(async (req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    const file = path.resolve(dir, '.' + (p.endsWith('/') ? p + 'index.html' : p));
    const body = file.startsWith(dir + path.sep) ? await readFile(file).catch(() => null) : null;
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

/** Runs a built app in Chromium and checks it translated as Node does. */
async function runsLikeNode(out) {
  const assets = await readdir(out, { recursive: true });
  assert.ok(assets.some((f) => /\.wasm$/.test(f)), `the .wasm is an asset: ${assets}`);
  for (const f of assets.filter((a) => a.endsWith('.js')))
    assert.doesNotMatch(await readFile(path.join(out, f), 'utf8'), /__vite-browser-external|node:(os|fs|worker_threads)['"]/, `${f} names a Node module`);
  const srv = await serveDir(out);
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
}

test('vite build with the defaults: no warning, and the app translates in Chromium as Node does (translate, translateBatch, a pool)', async () => {
  const { out, warnings } = await viteBuild();
  assert.deepEqual(warnings, []);
  const assets = await readdir(path.join(out, 'assets'));
  assert.ok(assets.some((f) => /^pool-worker-.*\.js$/.test(f)), `the pool Worker is bundled: ${assets}`);
  await runsLikeNode(out);
});

test('webpack with the defaults: no warning but the size hint, and the app translates in Chromium as Node does', async () => {
  const { out, warnings } = await webpackBuild();
  assert.deepEqual(warnings, []);
  await runsLikeNode(out);
});
