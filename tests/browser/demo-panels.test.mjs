// The training panel and the length study on the real demo page (web/index.html, as web/app.js mounts
// them): a training run redraws the loss curve and the probe alignment while it runs, is stopped, and
// the model it hands to the page's translator decodes exactly like its download does in Node; the
// study's accuracies equal Node's on the same strings. When a panel module (or one it imports)
// answers 404, that panel shows a visible error in its place, logs it, and the rest of the page works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo, panelErrors, OUT, runToEnd } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';
import { reverseSet, lengthGrid } from '../../web/study/data.js';

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

async function open(opts) {
  const r = await openDemo(browser.ctx, srv.base, opts);
  assert.deepEqual(await panelErrors(r.page), [], 'both panels load on the demo page');
  return r;
}
const matrix = (page) => page.$$eval('#alignment tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td[data-col]'), (td) => Number(td.dataset.weight))));

test('training on the page: loss curve and probe redrawn while it runs; the stopped model is handed to the translator', async () => {
  const { page, problems } = await open();
  const P = '#train-panel';
  await page.selectOption(`${P} select[name=task]`, 'reverse');
  await page.selectOption(`${P} select[name=hidden]`, '16');
  await page.fill(`${P} input[name=steps]`, '20000');   // far more than needed: the test stops it
  await page.fill(`${P} input[name=every]`, '5');
  assert.equal(await page.inputValue(`${P} input[name=probe]`), 'abcdefg');
  // Record each redraw of the loss curve (its last step) and of the probe matrix (its step).
  await page.evaluate(() => {
    const loss = document.querySelector('#train-panel svg.ts-loss');
    const probe = document.querySelector('#train-panel svg.ts-matrix');
    const draws = window.__draws = { loss: [], probe: [] };
    const record = (list, v) => { if (list.at(-1) !== v) list.push(v); };
    new MutationObserver(() => record(draws.loss, Number(loss.dataset.lastStep))).observe(loss, { attributeFilter: ['data-last-step'] });
    new MutationObserver(() => record(draws.probe, Number(probe.dataset.step))).observe(probe, { attributeFilter: ['data-step'] });
  });
  await page.click(`${P} .ts-start`);
  // At least two redraws of each view after step 0, then stop: the run cannot end on its own first.
  await page.waitForFunction(() => window.__draws.loss.filter((s) => s > 0).length >= 2 && window.__draws.probe.filter((s) => s > 0).length >= 2,
    null, { timeout: 60000, polling: 100 });
  assert.equal(await page.getAttribute(P, 'data-state'), 'running');
  await page.locator(P).screenshot({ path: path.join(OUT, 'demo-training.png') });
  await page.click(`${P} .ts-stop`);
  await page.waitForFunction(() => document.getElementById('train-panel').dataset.state === 'trained', null, { timeout: 20000, polling: 100 });

  const draws = await page.evaluate(() => window.__draws);
  for (const [what, list] of Object.entries(draws)) {
    for (let i = 1; i < list.length; i++) assert.ok(list[i] > list[i - 1], `${what} redraws go forward: ${list}`);
  }
  const stopped = Number((await page.textContent(`${P} .ts-status`)).match(/^Stopped at step (\d+) of 20000\.$/)?.[1]);
  assert.ok(stopped > 0, await page.textContent(`${P} .ts-status`));
  const loss = await page.$eval(`${P} svg.ts-loss`, (s) => ({ ...s.dataset, d: s.querySelector('path.ts-loss-line')?.getAttribute('d') ?? '' }));
  assert.equal(Number(loss.lastStep), stopped, 'the curve ends at the step training stopped at');
  assert.ok(Number(loss.points) >= 2 && loss.d.split('L').length >= 2, `loss curve: ${loss.points} points, path "${loss.d}"`);
  assert.ok(Number.isFinite(Number(loss.firstLoss)) && Number(loss.firstLoss) > 0, `first loss ${loss.firstLoss}`);
  const probe = await page.$eval(`${P} svg.ts-matrix`, (s) => ({ step: Number(s.dataset.step), rows: Number(s.dataset.rows), cols: Number(s.dataset.cols) }));
  assert.ok(probe.step > 0 && probe.rows > 0 && probe.cols === 7, JSON.stringify(probe));
  assert.equal(await page.locator(`${P} svg.ts-matrix rect.ts-cell`).count(), probe.rows * 7);

  // The download and "Use in translator" are the same weights: the page's translator decodes the
  // probe exactly as the downloaded file does in Node.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`${P} .ts-download`)]);
  const bytes = await readFile(await dl.path());
  await page.click(`${P} .ts-use`);
  await page.waitForFunction(() => document.getElementById('model').value.startsWith('user:') && !document.getElementById('play').disabled,
    null, { timeout: 20000, polling: 100 });
  const label = (await page.inputValue('#model')).slice('user:'.length);
  assert.equal(label, `reverse · luong/dot · GRU 16 · step ${stopped}`);
  assert.match(await page.textContent('#model-info'), /GRU luong attention, dot score.*hidden 16/);
  await page.fill('#source', 'abcdefg');
  await runToEnd(page);
  const m = await loadModel(bytes);
  const r = m.translate('abcdefg');
  m.dispose();
  assert.equal(await page.textContent('#output'), r.text);
  const got = (await matrix(page)).flat();
  assert.equal(got.length, r.attention.length);
  got.forEach((w, i) => assert.ok(Math.abs(w - r.attention[i]) <= 1e-6, `alignment[${i}]: ${w} vs ${r.attention[i]}`));
  assert.deepEqual(problems, []);
  await page.close();
});

test('length study on the page: both reverse models, the same accuracies as Node on the same strings', async () => {
  const { page, problems } = await open();
  const N = 2;
  await page.fill('#length-study input[name=n]', String(N));
  await page.click('#length-study .ls-run');
  await page.waitForFunction(() => ['done', 'error', 'stopped'].includes(document.getElementById('length-study').dataset.state),
    null, { timeout: 60000, polling: 100 });
  assert.equal(await page.getAttribute('#length-study', 'data-state'), 'done', await page.textContent('#length-study .ts-status'));
  assert.equal(await page.getAttribute('#length-study', 'data-missing'), '');
  const lengths = lengthGrid(60, 5);
  assert.match(await page.textContent('#length-study .ts-status'), new RegExp(`^Done: ${2 * N * lengths.length} translations\\.`));
  const series = await page.$$eval('#length-study svg.ls-chart g.ls-series', (gs) => gs.map((g) => ({ key: g.dataset.key, acc: g.dataset.accuracy.split(',').map(Number) })));
  assert.deepEqual(series.map((x) => x.key), ['attention', 'vanilla']);
  assert.equal(await page.locator('#length-study .ls-table tbody tr').count(), lengths.length);
  await page.locator('#length-study').screenshot({ path: path.join(OUT, 'demo-length-study.png') });

  // Node, with the same shipped files and the panel's strings (web/study/panel.js draws them with
  // seed 7 by default), counting exact reversals itself.
  const sets = reverseSet(lengths, N, 7);
  for (const [k, file] of [[0, 'reverse.safetensors'], [1, 'reverse-vanilla.safetensors']]) {
    const m = await loadModel(await readFile(path.resolve('models', file)));
    const want = sets.map(({ sources }) => sources.filter((s) => m.translate(s).text === [...s].reverse().join('')).length / N);
    m.dispose();
    assert.deepEqual(series[k].acc, want, `${file}: accuracy by length`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// One panel's module (or a module it imports) answers 404: that panel says so in its place, the
// console has the error, the other panel mounts and the translator still works.
for (const { name, missing, broken, other, what } of [
  { name: 'the length study module', missing: '/web/study/panel.js', broken: 'length-study', other: 'train-panel', what: 'length study' },
  { name: 'a module the training panel imports', missing: '/web/train/tasks.js', broken: 'train-panel', other: 'length-study', what: 'training panel' },
]) {
  test(`a 404 for ${name} (${missing}) is a visible error in the ${what}'s place`, async () => {
    const { page, problems } = await openDemo(browser.ctx, srv.base, {
      route: (p) => p.route(`**${missing}`, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' })),
    });
    const errors = await panelErrors(page);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(errors[0].id, broken);
    assert.match(errors[0].text, new RegExp(`^The ${what} could not be loaded, so it is missing from this page; reloading may help\\. \\(.+\\)$`));
    assert.match(errors[0].text, /dynamically imported module/, 'the browser\'s own error is shown');
    assert.ok(await page.isVisible(`#${broken} .panel-error`));
    const color = await page.$eval(`#${broken} .panel-error`, (e) => getComputedStyle(e).color);
    assert.equal(color, await page.evaluate(() => { const p = document.createElement('p'); p.style.color = 'var(--err)'; document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; }), 'shown in the error colour');
    await page.locator(`#${broken}`).screenshot({ path: path.join(OUT, `demo-panel-error-${broken}.png`) });
    // The other panel mounted and the translator works.
    assert.equal(await page.locator(`#${other} .panel-error`).count(), 0);
    assert.equal(await page.locator(`#${other} ${other === 'train-panel' ? '.ts-start' : '.ls-run'}`).count(), 1);
    await page.fill('#source', 'Jane went to the store');
    await runToEnd(page);
    assert.ok((await page.textContent('#output')).length > 0);

    // The problems seen are exactly the 404, its console line and the panel's console.error.
    const url = `${srv.base}${missing}`;
    assert.ok(problems.includes(`HTTP 404: ${url}`), problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith(`console: attnseq demo: the ${what} could not be loaded:`)), problems.join('\n'));
    const other404 = problems.filter((p) => !p.includes(missing) && !/^console: (Failed to load resource: .*404|attnseq demo: )/.test(p));
    assert.deepEqual(other404, []);
    await page.close();
  });
}
