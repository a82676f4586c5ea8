// The train panel and the length study in Chromium, on their own test page
// (tests/browser/pages/train-study.html, a stub translator instead of the main page):
// training in the Worker lowers the loss and redraws the probe's alignment while the main thread
// has no task over 100 ms; "Use in translator" hands over a model that loads; the download is a
// safetensors file; the study plots both reverse models; a missing model file gives a clear message;
// the worker protocol answers {id, result} or {id, error: {code, message}}; the page works at
// 375 px and keyboard-only. No console errors or failed requests anywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, watch, OUT } from './helpers.mjs';

const PAGE = '/tests/browser/pages/train-study.html';
let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

async function open(query = '', viewport = { width: 1100, height: 900 }) {
  const page = await browser.ctx.newPage();
  await page.setViewportSize(viewport);
  const problems = watch(page);
  await page.goto(`${srv.base}${PAGE}${query}`);
  await page.waitForSelector('body[data-ready="1"]');
  return { page, problems };
}

// One read of the probe matrix: its step, weights, rows and cells together (training goes on between
// two reads, and a redraw may change the number of rows).
const matrixData = (page) => page.$eval('#train-panel svg.ts-matrix', (s) => ({ step: Number(s.dataset.step), weights: s.dataset.weights, rows: Number(s.dataset.rows), cells: s.querySelectorAll('rect.ts-cell').length }));

test('training in the worker: loss falls, the probe alignment is redrawn, no long tasks, model handed over and downloaded', async () => {
  const { page, problems } = await open();
  await page.selectOption('#train-panel select[name=task]', 'reverse');
  await page.fill('#train-panel input[name=steps]', '400');
  await page.fill('#train-panel input[name=every]', '20');
  assert.equal(await page.inputValue('#train-panel input[name=probe]'), 'abcdefg');
  // The step-0 snapshot (random weights) is the first; keep one from early in training.
  const t0 = await page.evaluate(() => performance.now());
  await page.click('#train-panel .ts-start');
  await page.waitForFunction(() => Number(document.querySelector('#train-panel svg.ts-matrix').dataset.step) >= 20, null, { timeout: 20000, polling: 100 });
  const early = await matrixData(page);
  await page.waitForFunction(() => Number(document.querySelector('#train-panel svg.ts-loss').dataset.lastStep) >= 250, null, { timeout: 30000, polling: 100 });
  const mid = await matrixData(page);
  const lossSvg = await page.$eval('#train-panel svg.ts-loss', (s) => ({ ...s.dataset, path: s.querySelector('path.ts-loss-line').getAttribute('d') }));
  await page.click('#train-panel .ts-stop');
  await page.waitForFunction(() => document.getElementById('train-panel').dataset.state === 'trained', null, { timeout: 10000, polling: 100 });
  const t1 = await page.evaluate(() => performance.now());

  const first = Number(lossSvg.firstLoss), last = Number(lossSvg.lastLoss);
  assert.ok(Number(lossSvg.points) >= 5, `${lossSvg.points} loss points`);
  assert.ok(first > 2, `first loss ${first}`);
  assert.ok(last < first * 0.5, `loss ${first} -> ${last}`);
  assert.ok(lossSvg.path.split('L').length >= 5, 'the curve has a path');
  assert.ok(mid.step > early.step, `probe steps ${early.step} -> ${mid.step}`);
  assert.notEqual(mid.weights, early.weights, 'the probe matrix changed');
  assert.ok(mid.rows >= 7, `probe rows ${mid.rows}`);
  assert.equal(mid.cells, mid.rows * 7);
  assert.match(await page.textContent('#train-panel .ts-status'), /Stopped at step \d+ of 400/);
  const stats = await page.textContent('#train-panel .ts-stats');
  assert.match(stats, /step \d+ \/ 400 · loss \d/);

  // The main thread stayed responsive while the worker trained.
  const longTasks = await page.evaluate(() => window.__longTasks);
  assert.ok(Array.isArray(longTasks), 'PerformanceObserver supports longtask');
  const during = longTasks.filter((t) => t.start >= t0 && t.start <= t1);
  assert.deepEqual(during.filter((t) => t.duration > 100), [], `long tasks while training: ${JSON.stringify(during)}`);

  // The held-out evaluation appears after the run.
  await page.waitForFunction(() => /Held-out/.test(document.querySelector('#train-panel .ts-eval').textContent), null, { timeout: 20000, polling: 100 });

  // "Use in translator" gives the stub api a model it can load and run.
  await page.click('#train-panel .ts-use');
  await page.waitForFunction(() => document.getElementById('stub-out').dataset.task === 'reverse', null, { timeout: 10000, polling: 100 });
  assert.match(await page.getAttribute('#stub-out', 'data-label'), /^reverse · luong\/dot · GRU 64 · step \d+$/);

  // Download: a real file that starts like a safetensors checkpoint.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#train-panel .ts-download')]);
  assert.match(dl.suggestedFilename(), /^attnseq-reverse-luong-dot-gru64-step\d+\.safetensors$/);
  const bytes = await readFile(await dl.path());
  const n = Number(bytes.readBigUInt64LE(0));
  assert.ok(n > 2 && 8 + n <= bytes.length, `header length ${n} of ${bytes.length}`);
  assert.equal(String.fromCharCode(bytes[8]), '{');
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  assert.equal(header.__metadata__.task, 'reverse');
  assert.ok(header['decoder.out.weight']);

  await page.screenshot({ path: path.join(OUT, 'train-panel.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('length study: both reverse models, accuracy against length, two curves', async () => {
  const { page, problems } = await open(`?n=3`);
  await page.click('#length-study .ls-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('length-study').dataset.state), null, { timeout: 30000, polling: 100 });
  assert.equal(await page.getAttribute('#length-study', 'data-state'), 'done', await page.textContent('#length-study .ts-status'));
  assert.equal(await page.getAttribute('#length-study', 'data-missing'), '');
  const series = await page.$$eval('#length-study svg.ls-chart g.ls-series', (gs) => gs.map((g) => ({
    key: g.dataset.key, points: Number(g.dataset.points), acc: g.dataset.accuracy.split(',').map(Number), d: g.querySelector('path').getAttribute('d') })));
  await page.screenshot({ path: path.join(OUT, 'length-study.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: path.join(OUT, 'length-study-dark.png'), fullPage: true });
  assert.deepEqual(series.map((x) => x.key), ['attention', 'vanilla']);
  for (const sr of series) {
    assert.equal(sr.points, 12);
    assert.equal(sr.d.split('L').length, 12);
    assert.ok(sr.acc.every((a) => a >= 0 && a <= 1));
  }
  // What the study is for: attention beats vanilla on the long strings.
  const tail = (a) => a.slice(6).reduce((x, y) => x + y, 0);
  assert.ok(tail(series[0].acc) > tail(series[1].acc), `attention ${series[0].acc} vs vanilla ${series[1].acc}`);
  assert.match(await page.textContent('#length-study .ts-status'), /Done: 72 translations/);
  assert.equal(await page.locator('#length-study .ls-table tbody tr').count(), 12);
  assert.deepEqual(problems, []);
  await page.close();
});

test('length study: a missing model file is reported clearly and the other still runs', async () => {
  const { page, problems } = await open(`?n=2&vanilla=no-such-model.safetensors`);
  await page.click('#length-study .ls-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('length-study').dataset.state), null, { timeout: 30000, polling: 100 });
  assert.equal(await page.getAttribute('#length-study', 'data-missing'), 'vanilla');
  const msg = await page.textContent('#length-study .ls-missing');
  assert.match(msg, /Vanilla \(no attention\): model not available/);
  assert.match(msg, /models\/no-such-model\.safetensors was not found on the server \(HTTP 404\)/);
  assert.equal(await page.locator('#length-study svg.ls-chart g.ls-series').count(), 1);
  // The only problem is the expected 404 of the missing file.
  assert.ok(problems.length >= 1 && problems.every((p) => /404|Failed to load resource/.test(p) && (!/http/.test(p) || /no-such-model\.safetensors/.test(p))), problems.join('\n'));
  await page.close();
});

test('worker protocol: {id, name, args} -> {id, result} | {id, error: {code, message}}', async () => {
  const { page, problems } = await open();
  const r = await page.evaluate(async () => {
    const e = window.__train.engine;
    const out = { info: await e.call('info') };
    try { await e.call('no.such.request'); } catch (err) { out.unknown = { name: err.name, code: err.code, message: err.message }; }
    try { await e.call('train.save'); } catch (err) { out.save = err.code; }
    try { await e.call('train.run', { options: { task: 'nope', steps: 5 } }); } catch (err) { out.bad = { code: err.code, message: err.message }; }
    out.cancel = await e.cancel(12345);
    return out;
  });
  assert.match(r.info.build, /xsimd/);
  assert.deepEqual(r.unknown, { name: 'AttnseqError', code: 'BAD_INPUT', message: "unknown request 'no.such.request'" });
  assert.equal(r.save, 'NOT_LOADED');
  assert.equal(r.bad.code, 'BAD_INPUT');
  assert.match(r.bad.message, /dates/);
  assert.equal(r.cancel, false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('375 px wide, keyboard only: every control is reachable and labelled, nothing overflows', async () => {
  const { page, problems } = await open('', { width: 375, height: 800 });
  const unlabelled = await page.$$eval('#train-panel input, #train-panel select, #length-study input', (els) =>
    els.filter((e) => !(e.labels?.length && e.labels[0].textContent.trim())).map((e) => e.name));
  assert.deepEqual(unlabelled, []);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `horizontal overflow ${overflow}px`);
  // Tab to the Start button and press it with the keyboard.
  let reached = false;
  for (let i = 0; i < 30 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.classList.contains('ts-start'));
  }
  assert.ok(reached, 'Start is reachable with Tab');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => Number(document.getElementById('train-panel').dataset.step) > 0, null, { timeout: 15000, polling: 100 });
  // Stop is the next control and is enabled while training.
  await page.keyboard.press('Tab');
  assert.ok(await page.evaluate(() => document.activeElement?.classList.contains('ts-stop')));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('train-panel').dataset.state === 'trained', null, { timeout: 10000, polling: 100 });
  await page.screenshot({ path: path.join(OUT, 'train-study-375.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});
