// The full demo page in real Chromium: en-ko plays row by row and ends equal to the package's
// translate(); the step inspector shows the package's step() numbers; compare and beam views render
// the right matrices; what-if edits (moved attention, dragged cell, forced prefix) re-decode like the
// package does; every export downloads the right content; a corrupted checkpoint (picked or dropped)
// shows an error and the page keeps translating; 375 px wide has no horizontal overflow; screenshots.
// Every test fails on any console error, failed request or 404, and on a panel that did not load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { demoSuite, OUT, runToEnd, pickModel } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';

const ROOT = path.resolve('.');
const SRC = 'Jane went to the store';
const FIXTURE = path.resolve('tests/data/parity/gru_luong_dot.safetensors');
const manifest = JSON.parse(await readFile(path.join(ROOT, 'models/index.json'), 'utf8')).models;

// Any console error, failed request or HTTP error is a problem (a shipped model or a panel module
// missing on the server included), and so is a panel showing that it could not be loaded (open()).
const suite = demoSuite();
const { model, open } = suite;

const pick = (page, id, source = SRC) => pickModel(page, id, source);

const matrix = (page) => page.$$eval('#alignment tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td[data-col]'), (td) => Number(td.dataset.weight))));
const rowTokens = (page) => page.$$eval('#alignment tbody th', (ths) => ths.map((th) => th.querySelector('button').firstChild.textContent));
const values = (page, sel) => page.$$eval(sel, (els) => els.map((e) => Number(e.dataset.value)));
const close = (a, b, tol, what) => {
  assert.equal(a.length, b.length, `${what}: length`);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= tol, `${what}[${i}]: ${a[i]} vs ${b[i]}`);
};

test('en-ko: play adds rows one engine step at a time; matrix, inspector, compare and beam match the package', async () => {
  const { page, problems } = await open();
  await pick(page, 'en-ko');
  // Record the number of rows after every change of the table, and play at 4 steps per second.
  await page.evaluate(() => {
    window.rowCounts = [];
    window.rowTimes = [];
    new MutationObserver(() => {
      const n = document.querySelectorAll('#alignment tbody tr').length;
      if (window.rowCounts.at(-1) !== n) {
        window.rowCounts.push(n);
        window.rowTimes.push(performance.now());
      }
    }).observe(document.getElementById('alignment'), { childList: true, subtree: true });
    const s = document.getElementById('speed');
    s.value = '5';
    s.dispatchEvent(new Event('input'));
  });
  assert.equal(await page.textContent('#speed-out'), '4 steps/s');
  await page.click('#play');
  await page.waitForFunction(() => document.querySelectorAll('#alignment tbody tr').length === 2);
  const mid = await matrix(page);
  assert.equal(mid.length, 2, 'an intermediate state with fewer rows than the final one');
  assert.equal(await page.getAttribute('#watch', 'data-state'), 'playing');
  assert.match(await page.textContent('#play'), /Pause/);
  await page.screenshot({ path: path.join(OUT, 'demo-playing.png') });
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');

  const m = await model('en-ko');
  const r = m.translate(SRC);
  // (Encoding and the first step happen in the same task, so the header-only state is not observed.)
  assert.deepEqual(await page.evaluate(() => window.rowCounts), Array.from({ length: r.rows }, (_, i) => i + 1), 'one row per step, in order');
  const times = await page.evaluate(() => window.rowTimes);
  for (let i = 1; i < times.length; i++) assert.ok(times[i] - times[i - 1] >= 150, `rows ${i} and ${i + 1} arrive a step apart (${times[i] - times[i - 1]} ms)`);
  const cells = await matrix(page);
  assert.equal(cells.length, r.rows);
  close(cells.flat(), Array.from(r.attention), 1e-6, 'alignment');
  assert.deepEqual(await rowTokens(page), r.tgtTokens);
  assert.equal(await page.textContent('#output'), r.text);
  assert.match(await page.textContent('#play'), /Play/);
  assert.ok(await page.isDisabled('#step'));

  // The step inspector for step 2 shows exactly what the package's step() returns for it.
  await page.click('#alignment tbody tr[data-row="1"] .row-btn');
  await page.waitForSelector('#inspector-body[data-step="1"]');
  const enc = m.encode(SRC);
  const mem = enc.memory();
  const dec = m.decoder(enc, { topk: 5 });
  dec.step();
  const s = dec.step();
  close(await values(page, '#inspector-body [data-kind="query"] rect'), Array.from(s.query), 1e-6, 'query');
  close(await values(page, '#inspector-body [data-kind="score"]'), Array.from(s.scores), 1e-5, 'scores');
  close(await values(page, '#inspector-body [data-kind="weight"]'), Array.from(s.attention), 1e-6, 'weights');
  close(await values(page, '#inspector-body [data-kind="context"] rect'), Array.from(s.context), 1e-6, 'context');
  close(await values(page, '#inspector-body [data-kind="key"] rect'), Array.from(mem.data), 1e-6, 'keys = values = h_i');
  close(await values(page, '#inspector-body [data-kind="topk"]'), s.topk.map((t) => t.p), 1e-6, 'top-k p');
  assert.deepEqual(await page.$$eval('#inspector-body [data-kind="topk"]', (els) => els.map((e) => Number(e.dataset.token))), s.topk.map((t) => t.token));
  assert.match(await page.textContent('#inspector-title'), new RegExp(`Step 2 of ${r.rows}: “${s.text}”`));
  assert.equal(await page.locator('#inspector-body .checks li.ok').count(), 3, 'softmax, context and dot checks pass');
  dec.dispose();
  enc.dispose();

  // Hovering a cell shows its weight.
  await page.hover('#alignment td[data-row="1"][data-col="4"]');
  assert.match(await page.textContent('#tip'), new RegExp(`${s.text} ← store: w = ${s.attention[4].toFixed(4)}`));
  assert.ok(await page.isVisible('#tip'));
  assert.equal(await page.locator('#alignment thead th.linked').count() >= 1, true);

  // Compare: vanilla vs attention, and one small multiple per attention model of the task (every
  // shipped model is in the repository: a missing one is a 404, which fails the test).
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done');
  const family = manifest.filter((x) => x.task === 'en-ko');
  assert.ok(family.some((x) => x.id === 'en-ko-vanilla'), 'models/index.json lists en-ko-vanilla');
  assert.equal(await page.locator('#compare-vanilla figure').count(), 2);
  const v = (await model('en-ko-vanilla')).translate(SRC);
  assert.equal(await page.locator('#compare-vanilla figure[data-style="none"] rect.final').count(), v.rows, 'one h_T cell per output token');
  assert.equal(await page.textContent('#compare-vanilla figure[data-style="none"] .out span'), v.text || '(empty)');
  assert.equal(await page.locator('#compare-vanilla figure[data-style="none"] [data-kind="final"] rect').count(), (await model('en-ko-vanilla')).config.encoderOutput);
  const attn = family.filter((x) => x.id !== 'en-ko-vanilla');
  assert.equal(await page.locator('#compare-scores figure').count(), attn.length);
  for (const x of attn) {
    const t = (await model(x.id)).translate(SRC);
    const fig = `#compare-scores figure[data-model="${x.id}"]`;
    assert.equal(await page.textContent(`${fig} .out span`), t.text);
    close(await page.$$eval(`${fig} rect.cell`, (els) => els.map((e) => Number(e.dataset.weight))), Array.from(t.attention), 1e-6, x.id);
  }
  assert.equal(await page.locator('#compare-errors li').count(), 0);
  await page.locator('#compare').screenshot({ path: path.join(OUT, 'demo-compare.png') });

  // Beam search: one list item and one matrix per hypothesis.
  await page.fill('#beam-size', '4');
  await page.click('#beam-run');
  const beam = m.translate(SRC, { beam: 4 });
  await page.waitForFunction((n) => document.querySelectorAll('#beam-results > li').length === n, beam.hypotheses.length);
  const hyps = await page.$$eval('#beam-results > li', (lis) => lis.map((li) => ({
    text: li.querySelector('.hyp-text').textContent, score: Number(li.dataset.score), cells: li.querySelectorAll('svg rect.cell').length,
  })));
  beam.hypotheses.forEach((hy, i) => {
    assert.equal(hyps[i].text, hy.text);
    assert.ok(Math.abs(hyps[i].score - hy.score) < 1e-6);
    assert.equal(hyps[i].cells, hy.rows * hy.cols);
  });
  await page.screenshot({ path: path.join(OUT, 'demo-desktop-full.png'), fullPage: true });
  await page.evaluate(() => document.getElementById('watch').scrollIntoView());
  await page.hover('#alignment td[data-row="1"][data-col="4"]');
  await page.screenshot({ path: path.join(OUT, 'demo-desktop.png') });
  assert.deepEqual(problems, []);
});

test('what if: moving a step\'s attention (button or drag) and forcing a prefix re-decode like the package', async () => {
  const { page, problems } = await open();
  await pick(page, 'en-ko');
  await runToEnd(page);
  const m = await model('en-ko');
  const expectWith = (k, col) => {
    const enc = m.encode(SRC);
    const dec = m.decoder(enc, { topk: 0 });
    const rows = [];
    for (let j = 0; !dec.done; j++) {
      const st = dec.step(j === k ? { attention: [0, 1, 2, 3, 4].map((i) => (i === col ? 1 : 0)) } : {});
      rows.push({ text: st.text, attention: Array.from(st.attention) });
    }
    dec.dispose();
    enc.dispose();
    return rows;
  };

  await page.click('#alignment tbody tr[data-row="1"] .row-btn');
  await page.click('#inspector-body tr[data-i="3"] .look');            // step 2 looks only at "the"
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  let want = expectWith(1, 3);
  assert.deepEqual(await rowTokens(page), want.map((x) => x.text));
  close((await matrix(page)).flat(), want.flatMap((x) => x.attention), 1e-6, 'what-if matrix');
  assert.deepEqual((await matrix(page))[1], [0, 0, 0, 1, 0]);
  assert.ok(await page.locator('#alignment tbody tr[data-row="1"]').evaluate((tr) => tr.classList.contains('edited')));
  assert.ok(await page.isVisible('#whatif-note'));
  const note = await page.textContent('#whatif-text');
  assert.ok(note.includes(want.filter((x) => x.text !== '</s>').map((x) => x.text).join(' ')) && note.includes(m.translate(SRC).text), note);

  // Drag the step-2 cell from "the" onto "to".
  await page.click('#whatif-clear');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  await page.locator('#alignment tbody tr[data-row="1"]').scrollIntoViewIfNeeded();
  const from = await page.locator('#alignment td[data-row="1"][data-col="4"]').boundingBox();
  const to = await page.locator('#alignment td[data-row="1"][data-col="2"]').boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done' && document.querySelector('#alignment tr.edited'));
  want = expectWith(1, 2);
  assert.deepEqual(await rowTokens(page), want.map((x) => x.text));
  assert.deepEqual((await matrix(page))[1], [0, 0, 1, 0, 0]);

  // A forced target prefix.
  await page.click('#whatif-clear');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  await page.fill('#prefix', '톰이');
  await runToEnd(page);
  const p = m.translate(SRC, { prefix: '톰이' });
  assert.equal(await page.textContent('#output'), p.text);
  assert.ok(p.text.startsWith('톰이'));
  close((await matrix(page)).flat(), Array.from(p.attention), 1e-6, 'prefix matrix');
  assert.ok(await page.locator('#alignment tbody tr[data-row="0"]').evaluate((tr) => tr.classList.contains('forced')));
  assert.deepEqual(problems, []);
});

test('exports download PNG, SVG, CSV and JSON of the current alignment', async () => {
  const { page, problems } = await open();
  await pick(page, 'en-ko');
  await runToEnd(page);
  const r = (await model('en-ko')).translate(SRC);
  const get = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    return { name: dl.suggestedFilename(), bytes: await readFile(await dl.path()) };
  };
  const png = await get('#export-png');
  assert.match(png.name, /\.png$/);
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.bytes.length > 1000);
  await writeFile(path.join(OUT, 'demo-export.png'), png.bytes);
  const svg = await get('#export-svg');
  const svgText = svg.bytes.toString('utf8');
  assert.match(svg.name, /\.svg$/);
  await writeFile(path.join(OUT, 'demo-export.svg'), svg.bytes);
  assert.match(svgText, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svgText.includes('제인이') && svgText.includes('store'));
  assert.equal((svgText.match(/<rect [^>]*><title>/g) ?? []).length, r.rows * r.cols, 'one cell (with a tooltip) per weight');
  const csv = await get('#export-csv');
  const lines = csv.bytes.toString('utf8').trimEnd().split('\n');
  assert.equal(lines[0], ',Jane,went,to,the,store');
  assert.equal(lines.length, 1 + r.rows);
  assert.equal(lines[1].split(',')[0], r.tgtTokens[0]);
  close(lines.slice(1).flatMap((l) => l.split(',').slice(1).map(Number)), Array.from(r.attention), 1e-6, 'csv');
  const json = JSON.parse((await get('#export-json')).bytes.toString('utf8'));
  assert.deepEqual(json.srcTokens, r.srcTokens);
  assert.deepEqual(json.tgtTokens, r.tgtTokens);
  close(json.attention.flat(), Array.from(r.attention), 1e-6, 'json');
  assert.deepEqual(problems, []);
});

test('a corrupted checkpoint (picked or dropped) shows an error and the page keeps translating', async () => {
  const { page, problems } = await open();
  // A shipped model whose file is broken (served as garbage here): a clear message, and the page goes on.
  await page.route('**/models/dates.safetensors', (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from('not a checkpoint') }));
  await page.selectOption('#model', 'dates');
  await page.waitForFunction(() => /could not be loaded/.test(document.getElementById('error').textContent));
  assert.match(await page.textContent('#error'), /Dates.*could not be loaded — BAD_CHECKPOINT: .*try again in a minute, or pick another model/);
  assert.ok(await page.isDisabled('#play'));
  assert.match(await page.textContent('#model option[value="dates"]'), /not available/);
  await pick(page, 'en-ko');
  assert.equal(await page.textContent('#error'), '');
  const good = await readFile(FIXTURE);
  const bad = Buffer.from(good);
  bad.writeUInt32LE(0xffffff, 0);                      // header length far beyond the file
  await page.setInputFiles('#file', { name: 'broken.safetensors', mimeType: 'application/octet-stream', buffer: bad });
  await page.waitForFunction(() => document.getElementById('file-error').textContent.length > 0);
  assert.match(await page.textContent('#file-error'), /broken\.safetensors.*BAD_CHECKPOINT: .*header length/);
  assert.equal(await page.inputValue('#model'), 'en-ko', 'the previous model stays selected');
  await runToEnd(page);
  assert.equal(await page.textContent('#output'), (await model('en-ko')).translate(SRC).text);

  // Drag and drop: a truncated file is refused, then a good one is added to "Your models" and used.
  const drop = (name, bytes) => page.evaluate(([n, b]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], n));
    for (const type of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, Array.from(bytes)]);
  await drop('truncated.safetensors', good.subarray(0, good.length - 100));
  await page.waitForFunction(() => /truncated/.test(document.getElementById('file-error').textContent));
  assert.match(await page.textContent('#file-error'), /BAD_CHECKPOINT/);
  assert.ok(await page.isHidden('#drop-overlay'));
  await drop('dropped.safetensors', good);
  await page.waitForFunction(() => document.getElementById('model').value === 'user:dropped.safetensors' && !document.getElementById('play').disabled);
  assert.equal(await page.textContent('#error'), '');
  await page.fill('#source', 'w5 w6 w7 w8 w4');
  await runToEnd(page);
  const fx = await loadModel(good);
  const r = fx.translate('w5 w6 w7 w8 w4');
  close((await matrix(page)).flat(), Array.from(r.attention), 1e-6, 'dropped model');
  fx.dispose();
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done');
  assert.equal(await page.locator('#compare-scores figure').count(), 1, 'a task of its own: only itself to compare');
  assert.deepEqual(problems, []);
});

test('a reordering sentence, desktop screenshot (light) for the README', async () => {
  const { page, problems } = await open({ width: 1440, height: 1180 });
  const src = 'Mina read the book at the library';
  await pick(page, 'en-ko', src);
  await runToEnd(page);
  const r = (await model('en-ko')).translate(src);
  close((await matrix(page)).flat(), Array.from(r.attention), 1e-6, 'alignment');
  const k = r.tgtTokens.indexOf('읽었다');                 // the verb comes last in Korean ...
  if (k >= 0) {
    await page.click(`#alignment tbody tr[data-row="${k}"] .row-btn`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.hover(`#alignment td[data-row="${k}"][data-col="1"]`);   // ... and attends to "read"
    assert.match(await page.textContent('#inspector-title'), /읽었다/);
  }
  await page.screenshot({ path: path.join(OUT, 'demo-desktop-reorder.png') });
  assert.deepEqual(problems, []);
});

test('375 px wide: no horizontal overflow; dark mode renders', async () => {
  const { page, problems } = await open({ width: 375, height: 800 });
  await pick(page, 'en-ko');
  await runToEnd(page);
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done' && document.getElementById('beam').dataset.state === 'done');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375, 'body does not scroll sideways');
  await page.screenshot({ path: path.join(OUT, 'demo-375.png'), fullPage: true });
  await page.close();

  const dark = await open({ width: 1280, height: 900, dark: true });
  await pick(dark.page, 'en-ko', 'Mina read the book at the library');
  await runToEnd(dark.page);
  await dark.page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done');
  const bg = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(15, 17, 21)');
  await dark.page.screenshot({ path: path.join(OUT, 'demo-dark.png'), fullPage: true });
  assert.deepEqual([...problems, ...dark.problems], []);
});
