// An ensemble on the demo page, in real Chromium: a models/index.json entry with several files (here
// en-ko and en-ko-general, which share their vocabularies) loads as one ensemble; the watched decode
// steps it in the engine, the output is the package's ensemble translation, the matrix shows the
// members' mean weights or, picked, one member's own, and the inspector shows that member's numbers;
// a what-if moves every member's attention, and the decode goes on as the package's does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startServer, launch, openDemo, OUT } from './helpers.mjs';
import { loadModel, createEnsemble } from '../../wasm/attnseq.js';

const SRC = 'jane went to the store';
const FILES = ['en-ko.safetensors', 'en-ko-general.safetensors'];
let srv, browser, models, ensemble;
before(async () => {
  srv = await startServer();
  browser = await launch();
  models = await Promise.all(FILES.map(async (f) => loadModel(await readFile(path.join('models', f)))));
  ensemble = createEnsemble(models);
});
after(async () => { for (const m of models ?? []) m.dispose(); await browser?.close(); srv?.server.close(); });

// models/index.json with one more entry: the two models as an ensemble.
const withEnsemble = (p) => p.route('**/models/index.json', async (route) => {
  const index = JSON.parse(await readFile('models/index.json', 'utf8'));
  index.models.push({ id: 'en-ko-pair', files: FILES, task: 'en-ko', title: 'English → Korean (toy), two models together', examples: [SRC] });
  await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(index) });
});

const matrix = (page) => page.evaluate(() => Array.from(document.getElementById('alignment').tBodies[0].rows,
  (tr) => ({ word: tr.cells[0].textContent, w: Array.from(tr.querySelectorAll('td'), (td) => Number(td.dataset.weight)) })));

test('an ensemble entry: the mean matrix, one member\'s on request, its numbers in the inspector, a what-if of every member', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { route: withEnsemble });
  await page.selectOption('#model', 'en-ko-pair');
  await page.waitForFunction(() => /ensemble of 2 models/.test(document.getElementById('model-info').textContent));
  await page.fill('#source', SRC);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  const want = ensemble.translate(SRC).hypotheses[0];
  assert.equal(await page.textContent('#output'), ensemble.translate(SRC).text);
  assert.equal(await page.isVisible('#members'), true, 'the member picker is shown');
  assert.deepEqual(await page.$$eval('#member option', (os) => os.map((o) => o.textContent)),
    ['their mean (2 models)', `model 1 (${FILES[0]})`, `model 2 (${FILES[1]})`]);
  const close = (rows, flat, what) => rows.forEach((r, k) => r.w.forEach((w, t) => assert.ok(Math.abs(w - flat[k * want.cols + t]) < 1e-5, `${what} [${k}][${t}]`)));
  let rows = await matrix(page);
  assert.equal(rows.length, want.rows);
  close(rows, want.attention, 'mean');
  // Model 2's own weights, and its own numbers in the inspector.
  await page.selectOption('#member', '1');
  rows = await matrix(page);
  close(rows, want.memberAttention[1], 'model 2');
  assert.notDeepEqual(rows.map((r) => r.w), (() => { const m0 = []; for (let k = 0; k < want.rows; k++) m0.push(Array.from(want.memberAttention[0].subarray(k * want.cols, (k + 1) * want.cols))); return m0; })());
  assert.match(await page.textContent('#inspector-body'), /Model 2 of the 2 decoding together/);
  await page.screenshot({ path: path.join(OUT, 'ensemble-member.png'), fullPage: false });
  // A what-if (◎ in the inspector): step 2 looks only at "jane", in every member, and the decode goes
  // on from there as the package's ensemble decoder does with that override.
  const expected = (() => {
    const dec = ensemble.decoder(SRC, { topk: 0 });
    const out = [];
    for (let j = 0; !dec.done; j++) {
      const st = dec.step(j === 1 ? { attention: [1, 0, 0, 0, 0] } : {});
      out.push({ text: st.text, mean: Array.from(st.attention), second: Array.from(st.members[1].attention) });
    }
    dec.dispose();
    return out;
  })();
  await page.click('#alignment tbody tr[data-row="1"] .row-btn');
  await page.click('#inspector-body tr[data-i="0"] .look');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done' && /without it/.test(document.getElementById('whatif-text').textContent));
  rows = await matrix(page);
  assert.deepEqual(rows.map((r) => r.word.replace('✎', '')), expected.map((x) => x.text), 'the edited row is marked ✎');
  assert.ok(rows[1].word.endsWith('✎'));
  close(rows, expected.flatMap((x) => x.second), 'model 2 after the what-if');
  assert.deepEqual(rows[1].w, [1, 0, 0, 0, 0], 'model 2 looked only at “jane”');
  assert.match(await page.textContent('#whatif-text'), /step 2 → “jane”/);
  await page.selectOption('#member', '');
  rows = await matrix(page);
  close(rows, expected.flatMap((x) => x.mean), 'the mean after the what-if');
  assert.deepEqual(rows[1].w, [1, 0, 0, 0, 0], 'so did their mean');
  await page.click('#whatif-clear');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  assert.equal(await page.textContent('#output'), ensemble.translate(SRC).text, 'undone');
  // Back to the mean; a single model hides the picker.
  close(await matrix(page), want.attention, 'mean again');
  await page.selectOption('#model', 'en-ko');
  await page.waitForFunction(() => document.getElementById('members').hidden || document.getElementById('watch').dataset.state !== 'done');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  assert.equal(await page.isVisible('#members'), false);
  assert.deepEqual(problems, []);
});
