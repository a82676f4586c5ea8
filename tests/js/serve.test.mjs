// The demo's dev server (scripts/serve.mjs), run as `npm start` runs it: bad percent-encoding gets 400
// and the server keeps serving; only GET and HEAD (405 with Allow otherwise); only a local Host
// (DNS rebinding); only the allow-list (no wasm/bindings.cpp), also through symlinks; the CSP with
// frame-ancestors 'none' on every response, errors and redirects included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, CSP } from '../../scripts/serve.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let child, port, exited = null;

before(async () => {
  child = spawn(process.execPath, [path.join(ROOT, 'scripts/serve.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.on('exit', (code, signal) => { exited = { code, signal }; });
  let out = '';
  port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', () => reject(new Error(`the server exited before listening: ${out}`)));
  });
});
after(() => child?.kill());

/** One raw request (the path is sent exactly as given): { status, headers, body }. */
function request(reqPath, { method = 'GET', host = `127.0.0.1:${port}`, to = port, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: to, path: reqPath, method, headers: { Host: host, ...headers }, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function stillServes() {
  assert.equal(exited, null, `the server exited: ${JSON.stringify(exited)}`);
  const r = await request('/web/index.html');
  assert.equal(r.status, 200);
  assert.match(r.body, /<html/i);
}

test('bad percent-encoding in the path gets 400, and the server keeps serving', async () => {
  for (const p of ['/web/%', '/%ff', '/web/%E0%A4%A', '/web/%zz', '/web/%00']) {
    const r = await request(p);
    assert.equal(r.status, 400, `${p}: ${r.status} ${r.body}`);
    assert.equal(r.headers['content-security-policy'], CSP, p);
  }
  const r = await request('//');
  assert.ok(r.status < 500, `//: ${r.status}`);
  await stillServes();
});

test('GET and HEAD only: other methods get 405 with Allow and no file', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'TRACE', 'OPTIONS', 'PATCH']) {
    const r = await request('/web/index.html', { method });
    assert.equal(r.status, 405, method);
    assert.equal(r.headers.allow, 'GET, HEAD', method);
    assert.doesNotMatch(r.body, /<html/i, method);
  }
  const get = await request('/web/index.html');
  const head = await request('/web/index.html', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)));
  await stillServes();
});

test('only a local Host: another name (DNS rebinding) or another port gets 403', async () => {
  for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '127.0.0.1', 'localhost'])
    assert.equal((await request('/web/index.html', { host })).status, 200, host);
  for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`, '127.0.0.1.nip.io'])
    assert.equal((await request('/web/index.html', { host })).status, 403, host);
});

test('the allow-list: what the page loads, and not the rest of wasm/ or the repository', async () => {
  for (const p of ['/web/', '/web/app.js', '/wasm/attnseq.js', '/wasm/colormap.js', '/wasm/pool-worker.js',
    '/dist/attnseq-core.mjs', '/dist/attnseq-core.wasm', '/models/index.json'])
    assert.equal((await request(p)).status, 200, p);
  for (const p of ['/wasm/bindings.cpp', '/wasm/CMakeLists.txt', '/wasm/index.d.ts', '/wasm/', '/src/model/config.hpp',
    '/package.json', '/tests/js/serve.test.mjs', '/web/../src/model/config.hpp', '/web/%2e%2e/package.json', '/scripts/serve.mjs'])
    assert.equal((await request(p)).status, 404, p);
});

test("every response carries the CSP with frame-ancestors 'none': 200, 302, 400, 403, 404, 405, 431", async () => {
  assert.match(CSP, /frame-ancestors 'none'/);
  const cases = [
    [200, '/web/index.html', {}], [302, '/', {}], [400, '/%', {}], [403, '/web/', { host: 'evil.example' }],
    [404, '/nothing', {}], [405, '/web/', { method: 'POST' }], [431, '/web/', { headers: { 'X-Big': 'a'.repeat(20000) } }],
  ];
  for (const [status, p, o] of cases) {
    const r = await request(p, o);
    assert.equal(r.status, status, `${p} ${JSON.stringify(o).slice(0, 60)}`);
    assert.equal(r.headers['content-security-policy'], CSP, `${status}`);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', `${status}`);
  }
  await stillServes();
});

test('symlinks: one that leads out of the repository or out of the allow-list is not followed', async () => {
  // An allowed folder of our own inside the repository (test-output/ is git-ignored).
  await mkdir(path.join(ROOT, 'test-output'), { recursive: true });
  const dir = await mkdtemp(path.join(ROOT, 'test-output', 'serve-'));
  const outside = await mkdtemp(path.join(os.tmpdir(), 'attnseq-serve-'));
  const allow = path.relative(ROOT, dir).split(path.sep).join('/');
  const server = createServer({ allow: [allow] });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const p = server.address().port;
  try {
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await writeFile(path.join(dir, 'plain.txt'), 'plain');
    await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'out.txt'));
    await symlink(outside, path.join(dir, 'outdir'));
    await symlink(path.join(ROOT, 'wasm/bindings.cpp'), path.join(dir, 'bindings.cpp'));
    await symlink(path.join(ROOT, 'web/index.html'), path.join(dir, 'page.html'));
    const get = (q) => request(`/${allow}/${q}`, { host: `127.0.0.1:${p}`, to: p });
    assert.equal((await get('plain.txt')).status, 200);
    assert.equal((await get('page.html')).status, 200, 'a link to an allowed file is fine');
    for (const q of ['out.txt', 'outdir/secret.txt', 'bindings.cpp']) {
      const r = await get(q);
      assert.equal(r.status, 404, q);
      assert.doesNotMatch(r.body, /secret|#include/, q);
    }
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
});
