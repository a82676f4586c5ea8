// The beam search unfolding on the demo page, in real Chromium (issue 26, "what a teacher needs"): after
// a search, a column per decoder step shows that step's hypotheses, best first, each joined to the one
// it extended, with the package's own trace (translate(..., { trace: true })) as the numbers; the step
// control moves by buttons and by keyboard; the best answer's path is marked; at 390 px the tree fits
// the screen; an ensemble's beam, which is not recorded, shows no tree.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startServer, launch, openDemo, OUT, pickModel, runToEnd } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';
import { fmt } from '../../web/views/format.js';

const SRC = 'Jane went to the store';
let srv, browser, model;
before(async () => {
  srv = await startServer();
  browser = await launch();
  model = await loadModel(await readFile('models/en-ko.safetensors'));
});
after(async () => { model?.dispose(); await browser?.close(); srv?.server.close(); });

const drawn = (page) => page.$$eval('#unfold-tree g.node', (gs) => gs.map((g) => ({
  key: g.dataset.key, text: g.querySelector('text').textContent, cls: g.getAttribute('class'), title: g.querySelector('title').textContent })));

async function search(page, beam) {
  await page.fill('#beam-size', String(beam));
  await page.click('#beam-run');
  await page.waitForFunction(() => document.getElementById('beam').dataset.state === 'done');
}

test('the beam unfolds step by step with the package\'s trace; buttons and keys move it; the best path is marked', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await pickModel(page, 'en-ko', SRC);
  await runToEnd(page);
  await search(page, 4);
  const want = model.translate(SRC, { beam: 4, trace: true });
  const trace = want.beamTrace;
  assert.equal(await page.isVisible('#beam-unfold'), true);
  assert.equal(await page.getAttribute('#unfold-step', 'max'), String(trace.length));
  assert.equal(await page.inputValue('#unfold-step'), '1');
  // Step 1: the first step's hypotheses, best first, with the package's numbers in their titles.
  let nodes = await drawn(page);
  assert.deepEqual(nodes.map((n) => n.key), trace[0].map((_, i) => `0:${i}`));
  nodes.forEach((n, i) => {
    assert.equal(n.text, trace[0][i].token === model.config.eos ? '</s>' : model.tgtVocab[trace[0][i].token]);
    assert.ok(n.title.includes(`log p ${fmt(trace[0][i].logProb, 3)} · score ${fmt(trace[0][i].score, 3)}`), n.title);
  });
  assert.match(await page.textContent('#unfold-at'), new RegExp(`Step 1 of ${trace.length}: ${trace[0].filter((n) => !n.ended).length} alive`));
  assert.equal(await page.isDisabled('#unfold-prev'), true);
  // ▶ to the end: every step's nodes are drawn, and each drawn line joins a node to its parent.
  for (let k = 2; k <= trace.length; k++) {
    await page.click('#unfold-next');
    assert.equal(await page.inputValue('#unfold-step'), String(k));
    nodes = await drawn(page);
    const keys = new Set(nodes.map((n) => n.key));
    trace[k - 1].forEach((_, i) => assert.ok(keys.has(`${k - 1}:${i}`), `step ${k}: node ${i} drawn`));
  }
  assert.equal(await page.isDisabled('#unfold-next'), true);
  await page.locator('#beam').screenshot({ path: path.join(OUT, 'beam-unfold.png') });
  // The best answer's path: one marked node per step, spelling the answer.
  const best = nodes.filter((n) => /\bbest\b/.test(n.cls)).sort((a, b) => Number(a.key.split(':')[0]) - Number(b.key.split(':')[0]));
  const shownSteps = new Set(nodes.map((n) => n.key.split(':')[0]));
  const top = want.hypotheses[0];
  const wantBest = top.tokens.map((id, k) => [k, id]).filter(([k]) => shownSteps.has(String(k)));
  assert.deepEqual(best.map((n) => n.text), wantBest.map(([, id]) => (id === model.config.eos ? '</s>' : model.tgtVocab[id])));
  // Keyboard: the slider takes the arrow keys.
  await page.focus('#unfold-step');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.inputValue('#unfold-step'), String(trace.length - 1));
  await page.keyboard.press('Home');
  assert.equal(await page.inputValue('#unfold-step'), '1');
  assert.deepEqual(problems, []);
  await page.close();
});

test('at 390 px the unfolding fits the screen; beam 1 shows none', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { width: 390, height: 844 });
  await pickModel(page, 'en-ko', SRC);
  await runToEnd(page);
  await search(page, 3);
  while (!(await page.isDisabled('#unfold-next'))) await page.click('#unfold-next');   // to the last step
  const box = await page.locator('#unfold-tree svg').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `the tree spans ${box.x} to ${box.x + box.width} px`);
  const cols = new Set((await drawn(page)).map((n) => n.key.split(':')[0]));
  assert.ok(cols.size >= 2, `${cols.size} steps shown`);
  await search(page, 1);
  assert.equal(await page.isVisible('#beam-unfold'), false, 'greedy has no beam to unfold');
  assert.deepEqual(problems, []);
  await page.close();
});
