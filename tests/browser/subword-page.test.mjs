// The demo page with a subword (SentencePiece) model, in real Chromium: the matrix shows words by
// default (a source word's weight the sum of its pieces', a target word's row the mean of its steps'),
// the toggle shows the pieces (a row per step, as the package's translate() has them) and back, a
// character spelt as bytes is marked, the output is decoded text, and a model of words or letters has
// no toggle. The model is tiny and untrained (tests/js/safetensors.mjs): what is checked is the page's
// arithmetic and wiring, not the translation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo } from './helpers.mjs';
import { spmCheckpoint } from '../js/safetensors.mjs';
import { loadModel } from '../../wasm/attnseq.js';

const SPM = 'data/multi30k/spm';
const SOURCE = 'Grandmothers photographed 🙂 unbelievably enthusiastic skateboarders.';
let srv, browser, bytes, model;
before(async () => {
  srv = await startServer();
  browser = await launch();
  bytes = spmCheckpoint(await readFile(`${SPM}/m30k_en.model`), await readFile(`${SPM}/m30k_de.model`));
  model = await loadModel(bytes);
});
after(async () => { model?.dispose(); await browser?.close(); srv?.server.close(); });

// The table as numbers: the header's texts, each row's header text and its cells' exact weights.
const readTable = (page) => page.evaluate(() => {
  const t = document.getElementById('alignment');
  return {
    head: Array.from(t.tHead.rows[0].cells).slice(1).map((th) => th.textContent),
    bytes: Array.from(t.tHead.rows[0].cells).slice(1).map((th) => th.classList.contains('bytes')),
    rows: Array.from(t.tBodies[0].rows, (tr) => ({
      label: tr.cells[0].textContent,
      w: Array.from(tr.querySelectorAll('td'), (td) => Number(td.dataset.weight)),
    })),
  };
});

test('a subword model\'s matrix shows words, sums of its pieces, and the pieces by the toggle', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en'));
  assert.equal(await page.locator('#units').isHidden(), true, 'a model of letters and phonemes has no words/pieces toggle');
  await page.setInputFiles('#file', { name: 'tiny-spm.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await page.waitForFunction(() => document.getElementById('model').value.startsWith('user:') && !document.getElementById('play').disabled);
  assert.equal(await page.locator('#units').isVisible(), true, 'the toggle is shown for a model of pieces');
  assert.equal(await page.getAttribute('#units-words', 'aria-pressed'), 'true', 'words first');
  await page.fill('#source', SOURCE);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');

  // What the package says of the same decode (greedy, as the page's).
  const r = model.translate(SOURCE, { maxLength: 4 * model.tokenize(SOURCE).ids.length + 10 });
  const enc = model.tokenize(SOURCE);
  const steps = await page.evaluate(() => document.getElementById('inspector-title').textContent);
  const n = Number(/of (\d+)/.exec(steps)[1]);
  const v = model.words(enc.ids, r.tokens.slice(0, n), r.attention.subarray(0, n * enc.ids.length));
  assert.ok(v.cols < enc.ids.length, `the source has words of several pieces (${v.cols} words, ${enc.ids.length} pieces)`);

  const words = await readTable(page);
  assert.deepEqual(words.head, v.source, 'one column per source word');
  assert.deepEqual(words.rows.map((x) => x.label), v.target, 'one row per target word, the end token none');
  // Each word cell is the mean over the word's steps of the sum over the source word's pieces.
  for (let row = 0; row < v.rows; row++) {
    const [tf, tn] = v.targetSpans[row];
    for (let col = 0; col < v.cols; col++) {
      const [sf, sn] = v.sourceSpans[col];
      let want = 0;
      for (let k = tf; k < tf + tn; k++) for (let i = sf; i < sf + sn; i++) want += r.attention[k * enc.ids.length + i];
      want /= tn;
      assert.ok(Math.abs(words.rows[row].w[col] - want) < 1e-5, `word cell ${row},${col}: ${words.rows[row].w[col]} vs ${want}`);
    }
  }
  const emoji = v.source.findIndex((w) => w.includes('🙂'));
  assert.ok(emoji >= 0 && words.bytes[emoji], 'the word spelt as bytes is marked');
  assert.equal(words.bytes.filter(Boolean).length, 1, 'only that word');
  assert.equal(await page.textContent('#output'), model.detokenize(r.tokens.slice(0, n)), 'the output is decoded text, not pieces');
  assert.match(await page.textContent('#watch-h'), /one row per output word/);

  await page.click('#units-pieces');
  assert.equal(await page.getAttribute('#units-pieces', 'aria-pressed'), 'true');
  const pieces = await readTable(page);
  assert.deepEqual(pieces.head, enc.tokens, 'one column per source piece');
  assert.equal(pieces.rows.length, n, 'one row per step');
  for (let k = 0; k < n; k++)
    for (let i = 0; i < enc.ids.length; i++) {
      // (Node runs the plain products, Chromium the relaxed-SIMD ones, fused multiply-adds: the same
      // weights to rounding, not to the bit.)
      const want = r.attention[k * enc.ids.length + i];
      assert.ok(Math.abs(pieces.rows[k].w[i] - want) <= 1e-6, `piece cell ${k},${i}: ${pieces.rows[k].w[i]} vs ${want}`);
    }
  assert.equal(pieces.bytes.filter(Boolean).length, enc.tokens.filter((t) => /^<0x/.test(t)).length, 'each byte piece is marked');
  assert.match(await page.textContent('#watch-h'), /one row per decoder step/);
  // A word row pressed inspects that word's last step.
  await page.click('#units-words');
  assert.deepEqual((await readTable(page)).head, v.source, 'back to words');
  const last = v.targetSpans[0][0] + v.targetSpans[0][1] - 1;
  await page.click('#alignment tbody tr:first-child .row-btn');
  assert.match(await page.textContent('#inspector-title'), new RegExp(`^Step ${last + 1} of`), 'the first word\'s last step is inspected');
  assert.deepEqual(problems, []);
  await page.close();
});
