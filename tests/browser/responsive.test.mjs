// The main thread stays responsive while the compare and beam views compute (issue 13, item 4): on the
// reverse model and 300 letters, Step works while Compare and Search (beam 16) are under way, no
// main-thread task takes over 100 ms (longtask entries, the bound of long-input.test.mjs), and the views
// show the package's results. The page itself never calls Model.translate() (counted through the package
// module it imports): compare, beam, the prefix hint and the what-if note run in the engine Worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoSuite, pickModel } from './helpers.mjs';

const SRC = 'abcdefghijklmnopqrst'.repeat(15);   // 300 letters, as in long-input.test.mjs
const BUDGET = 100;                              // ms: the longest main-thread task allowed (long-input.test.mjs)
const LONG_WAIT = { timeout: 120000 };

const suite = demoSuite();
const { model } = suite;

async function open(t) {
  const { page, problems } = await suite.open();
  t.after(() => page.close());
  // From now on, every Model.translate() and Model.encode() on the page's main thread is counted: the
  // page's modules import the package from this same URL, so they share its Model class.
  await page.evaluate(async () => {
    const { Model } = await import('/wasm/attnseq.js');
    const calls = window.engineCalls = { translate: [], encode: 0 };
    const { translate, encode } = Model.prototype;
    Model.prototype.translate = function (input, options) {
      calls.translate.push(`${String(input).slice(0, 20)} ${JSON.stringify(options ?? {})}`);
      return translate.call(this, input, options);
    };
    Model.prototype.encode = function (input) {
      calls.encode++;
      return encode.call(this, input);
    };
  });
  return { page, problems };
}
const calls = (page) => page.evaluate(() => ({ translate: [...window.engineCalls.translate], encode: window.engineCalls.encode }));
const stateOf = (page, id) => page.getAttribute(`#${id}`, 'data-state');

// Rows of the live alignment: the canvas window's (a long source) or the table's.
const ROWS = () => Number(document.querySelector('#watch .mview.live')?.dataset.rows ?? document.querySelectorAll('#alignment tbody tr').length);
const waitRows = (page, n) => page.waitForFunction(`(${ROWS})() === ${n}`, null, LONG_WAIT);

test('300 letters: while Compare and Search (beam 16) are under way, Step works; no main-thread task over 100 ms; no translate() on the page', async (t) => {
  const { page, problems } = await open(t);
  const reverse = await model('reverse'), vanilla = await model('reverse-vanilla');
  // The page loads the reverse model first; every later request for its file (the engine Worker's)
  // waits until the watched decode has taken its steps, so compare and beam are surely under way then.
  let requests = 0, release;
  const held = new Promise((r) => { release = r; });
  t.after(() => release());
  await page.route('**/models/reverse.safetensors', async (route) => {
    if (requests++ > 0) await held;
    await route.continue().catch(() => {});   // (the page may be closed by then)
  });
  await pickModel(page, 'reverse', SRC);
  await page.fill('#beam-size', '16');
  // The first step encodes the input and draws the empty 300-column window (bounded by
  // long-input.test.mjs); what is measured here starts after it.
  await page.click('#step');
  await waitRows(page, 1);
  // Every main-thread task over 50 ms from now on.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate(() => {
    window.longTasks = [];
    window.sinceMark = performance.now();
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.startTime >= window.sinceMark) window.longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  });

  // Both views start, and the watched decode takes three more steps while they are under way.
  await page.click('#compare-run');
  await page.click('#beam-run');
  for (let k = 2; k <= 4; k++) {
    await page.click('#step');
    await waitRows(page, k);
    assert.deepEqual([await stateOf(page, 'compare'), await stateOf(page, 'beam')], ['running', 'running'], `step ${k} landed while compare and beam ran`);
  }
  assert.ok(requests > 1, 'the engine Worker asked for the model (compare and beam run there)');
  release();
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done' && document.getElementById('beam').dataset.state === 'done', null, LONG_WAIT);
  // Two frames for the results to be drawn, then a moment for the observer to deliver the last entries.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(200);
  const tasks = await page.evaluate(() => window.longTasks.splice(0));
  t.diagnostic(`main-thread tasks over 50 ms: ${JSON.stringify(tasks)}`);
  assert.ok(Math.max(0, ...tasks) <= BUDGET, `main-thread tasks of ${tasks.map((ms) => `${ms} ms`).join(', ')} while compare and beam computed (the budget is ${BUDGET} ms)`);

  // What the views show is the package's: beam 16's hypotheses, each model's greedy output.
  const beam = reverse.translate(SRC, { beam: 16 });
  assert.deepEqual(await page.$$eval('#beam-results > li .hyp-text', (els) => els.map((e) => e.textContent)), beam.hypotheses.map((x) => x.text || '(empty)'));
  assert.equal(await page.textContent('#compare-scores figure[data-model="reverse"] .out span'), reverse.translate(SRC).text || '(empty)');
  assert.equal(await page.textContent('#compare-vanilla figure[data-style="none"] .out span'), vanilla.translate(SRC).text || '(empty)');
  assert.equal(await page.locator('#compare-errors li').count(), 0);

  // None of it ran on the page: no translate() there; the one encode() is the watched decode's.
  const c = await calls(page);
  assert.deepEqual(c.translate, [], 'Model.translate() calls on the main thread');
  assert.equal(c.encode, 1, 'the watched decode encoded the input once (and the counter sees the page\'s calls)');
  assert.deepEqual(problems, []);
});

test('the prefix hint and the what-if note\'s output without the edit are translated in the Worker, not on the page', async (t) => {
  const { page, problems } = await open(t);
  const m = await model('en-ko-general');
  const src = 'Jane went to the store';
  // The hint under the prefix field: the first output token of the model's example.
  await pickModel(page, 'en-ko-general');
  assert.equal(await page.inputValue('#source'), src);
  const hint = `e.g. ${m.translate(src, { maxLength: 4 }).tgtTokens[0]}`;
  await page.waitForFunction((want) => document.getElementById('prefix').placeholder === want, hint);

  // Two steps (the decode is not finished, so its output is not known yet), then step 1 looks only
  // at "the" (◎) and the decode runs to the end from there at the fastest speed.
  await page.evaluate(() => {
    const s = document.getElementById('speed');
    s.value = '8';
    s.dispatchEvent(new Event('input'));
  });
  await page.click('#step');
  await page.click('#step');
  await waitRows(page, 2);
  await page.click('#alignment tbody tr[data-row="0"] .row-btn');
  await page.click('#inspector-body tr[data-i="3"] .look');
  const enc = m.encode(src);
  const dec = m.decoder(enc, { topk: 0 });
  const edited = [];
  for (let j = 0; !dec.done; j++) edited.push(dec.step(j === 0 ? { attention: [0, 0, 0, 1, 0] } : {}));
  dec.dispose();
  enc.dispose();
  const withEdit = edited.filter((s) => s.token !== m.config.eos).map((s) => s.text).join(' ');
  const without = m.translate(src).text;
  assert.notEqual(withEdit, without, 'the edit changes the output (else the note could not tell them apart)');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done', null, LONG_WAIT);
  await page.waitForFunction(() => /without it/.test(document.getElementById('whatif-text').textContent), null, LONG_WAIT);
  const note = await page.textContent('#whatif-text');
  assert.ok(note.includes(`“${withEdit}”`) && note.includes(`“${without}”`), note);
  assert.equal(await page.textContent('#output'), withEdit);

  const c = await calls(page);
  assert.deepEqual(c.translate, [], 'Model.translate() calls on the main thread');
  assert.equal(c.encode, 2, 'the watched decode encoded twice (before and after the edit)');
  assert.deepEqual(problems, []);
});
