// The demo page in real Chromium: a checkpoint picked by file input loads, rows of the alignment
// appear one per step, the final matrix equals the package's translate(), a corrupted file shows an
// error and the page keeps working, no console errors or failed requests, and a screenshot is saved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, watch, OUT } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';

const FIXTURE = path.resolve('tests/data/parity/gru_luong_general.safetensors');
let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

test('the page steps the decoder row by row and matches translate()', async () => {
  const page = await browser.ctx.newPage();
  const problems = watch(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });  // no opening example playing on its own
  await page.goto(`${srv.base}/web/`);
  await page.setInputFiles('#file', FIXTURE);
  // Wait for the dropped file to be the model (Encode stays disabled while the input is empty).
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('gru_luong_general'));
  await page.fill('#source', 'w5 w6 w7 w8 w4');
  await page.waitForFunction(() => !document.getElementById('encode').disabled);
  await page.click('#encode');
  assert.equal(await page.locator('#alignment tr').count(), 1, 'header row only before any step');
  await page.click('#step');
  assert.equal(await page.locator('#alignment tr').count(), 2, 'one row after one step');
  await page.click('#step');
  assert.equal(await page.locator('#alignment tr').count(), 3, 'two rows after two steps');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('step').disabled);
  const cells = await page.$$eval('#alignment tr', (trs) => trs.slice(1).map((tr) => Array.from(tr.querySelectorAll('td'), (td) => Number(td.textContent))));

  const model = await loadModel(await readFile(FIXTURE));
  const r = model.translate('w5 w6 w7 w8 w4');
  assert.equal(cells.length, r.rows);
  for (let k = 0; k < r.rows; k++)
    for (let t = 0; t < r.cols; t++) assert.ok(Math.abs(cells[k][t] - r.attention[k * r.cols + t]) <= 0.005, `cell ${k},${t}`);
  model.dispose();
  await page.screenshot({ path: path.join(OUT, 'minimal-page.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('a corrupted checkpoint shows an error and the page keeps working', async () => {
  const page = await browser.ctx.newPage();
  const problems = watch(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });  // no opening example playing on its own
  await page.goto(`${srv.base}/web/`);
  const good = await readFile(FIXTURE);
  const bad = Buffer.from(good);
  bad.writeUInt32LE(0xffffff, 0);  // header length far beyond the file
  await page.setInputFiles('#file', { name: 'bad.safetensors', mimeType: 'application/octet-stream', buffer: bad });
  await page.waitForFunction(() => document.getElementById('file-error').textContent.length > 0);
  assert.match(await page.textContent('#file-error'), /BAD_CHECKPOINT: .*header length/);
  await page.setInputFiles('#file', FIXTURE);
  // The good file becomes the model (Encode stays disabled while the input is empty).
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('gru_luong_general'));
  await page.fill('#source', 'w5 w6');
  await page.waitForFunction(() => !document.getElementById('encode').disabled);
  await page.click('#encode');
  await page.click('#step');
  assert.equal(await page.locator('#alignment tr').count(), 2);
  assert.deepEqual(problems, []);
});
