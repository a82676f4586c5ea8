// The package in Chromium: inside a module Worker and on a page that relocates the .wasm with
// init({ locateFile }); both give the same translation as Node, with no console errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watch } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

test('module Worker and locateFile both work and agree with Node', async () => {
  const page = await browser.ctx.newPage();
  const problems = watch(page);
  await page.goto(`${srv.base}/tests/browser/pages/worker.html`);
  await page.waitForFunction(() => document.getElementById('out').dataset.done === '1', null, { timeout: 30000 });
  const res = JSON.parse(await page.textContent('#out'));
  const model = await loadModel('tests/data/parity/gru_luong_general.safetensors');
  const r = model.translate('w5 w6 w7 w8 w4');
  assert.deepEqual(res.worker.tokens, r.tokens);
  assert.deepEqual(res.page.tokens, r.tokens);
  for (let i = 0; i < r.attention.length; i++) {
    assert.ok(Math.abs(res.worker.attention[i] - r.attention[i]) < 1e-6);
    assert.ok(Math.abs(res.page.attention[i] - r.attention[i]) < 1e-6);
  }
  model.dispose();
  assert.deepEqual(problems, []);
});
