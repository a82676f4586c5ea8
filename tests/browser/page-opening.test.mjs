// The page opens on what it is for (issue 26, item 2), in real Chromium: at 1280 x 900 the opening
// model plays its first example on its own and the matrix fills in view, with no scrolling; a visitor
// who asks the system for reduced motion gets no autoplay; at 390 x 844, pressing Play brings the
// matrix into view below the input; the introduction says what attention is in words before its
// symbols; the input's hint fits the model's task.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launch, openDemo, OUT } from './helpers.mjs';

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const inView = (page, sel) => page.$eval(sel, (el) => {
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight && r.height > 0;
});

test('1280 x 900: the opening example plays on its own, and the matrix fills in view', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { motion: true });
  await page.waitForFunction(() => document.querySelectorAll('#alignment tbody tr').length >= 2, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => scrollY), 0, 'nothing scrolled');
  const first = await page.$eval('#examples button.chip', (b) => b.textContent);
  assert.equal(await page.inputValue('#source'), first, 'the first example is what plays');
  assert.ok(await inView(page, '#alignment thead'), 'the matrix\'s column labels are in view');
  assert.ok(await inView(page, '#alignment tbody tr:first-child'), 'its first row is in view');
  await page.screenshot({ path: path.join(OUT, 'page-opening-1280.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('reduced motion: nothing plays until the visitor asks', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('#alignment tbody tr').count(), 0);
  assert.equal(await page.$eval('#watch', (w) => w.dataset.state), 'idle');
  assert.deepEqual(problems, []);
  await page.close();
});

test('390 x 844: Play brings the matrix into view below the input', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { width: 390, height: 844 });
  const top = await page.$eval('#watch', (w) => w.getBoundingClientRect().top);
  assert.ok(top > 844, `the matrix starts below the fold on a phone (${top})`);
  await page.click('#play');
  await page.waitForFunction(() => document.querySelectorAll('#alignment tbody tr').length >= 1);
  await page.waitForFunction(() => { const r = document.getElementById('watch').getBoundingClientRect(); return r.top > -2 && r.top < 100; }, null, { timeout: 5000 });
  assert.ok(await inView(page, '#alignment thead'), 'the column labels are in view');
  await page.screenshot({ path: path.join(OUT, 'page-opening-390.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the introduction says what attention is in words before its symbols; hints fit the task', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  const lede = await page.$$eval('header .lede', (ps) => ps.map((p) => p.textContent.replace(/\s+/g, ' ').trim()));
  assert.match(lede[0], /that is attention/);
  assert.doesNotMatch(lede[0], /[=Σ]/, 'no formula in the first paragraph');
  assert.match(lede[1], /^In symbols: .*Q = Sk/);
  for (const [id, hint] of [['g2p-en', /^Type a word/], ['dates', /^Type a date/], ['en-de', /^Type a sentence/], ['reverse', /^Type a few letters/]]) {
    await page.selectOption('#model', id);
    await page.waitForFunction((x) => document.getElementById('model-info').textContent.includes(`${x}.safetensors`), id);  // an ensemble's names its members' files
    assert.match(await page.textContent('#source-hint'), hint, id);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the log scale tells weights near 0 and near 1 apart; the note\'s claims about the dates model hold', async () => {
  const { loadModel } = await import('../../wasm/attnseq.js');
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en'));
  await page.fill('#source', 'photograph');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  const cells = () => page.$$eval('#alignment tbody td[data-weight]', (tds) => tds.map((td) => [Number(td.dataset.weight), td.textContent]));
  const linear = await cells();
  assert.ok(linear.every(([, t]) => /^\d\.\d\d$/.test(t)), 'two decimals');
  await page.click('#scale-log');
  assert.equal(await page.getAttribute('#scale-log', 'aria-pressed'), 'true');
  assert.match(await page.textContent('#scale-legend'), /log scale/);
  const log = await cells();
  assert.deepEqual(log.map(([w]) => w), linear.map(([w]) => w), 'the same weights');
  for (const [w, t] of log) {
    if (w > 0 && w < 0.01) assert.equal(t, w.toExponential(0), `${w}`);
    if (w >= 0.995 && w < 1) assert.equal(t, `1−${(1 - w).toExponential(0)}`, `${w}`);
  }
  // g2p-en's scores are so far apart that most weights are exactly 0 in float32; the scores view
  // shows how far below the row's highest each one was.
  await page.click('#scale-scores');
  assert.match(await page.textContent('#scale-legend'), /raw scores/);
  const { loadModel: load } = await import('../../wasm/attnseq.js');
  const g2p = await load(path.resolve('models/g2p-en.safetensors'));
  const dec = g2p.decoder(g2p.encode('photograph'));
  const s0 = dec.step();
  const row0 = await page.$$eval('#alignment tbody tr:first-child td[data-weight]', (tds) => tds.map((td) => [td.textContent, td.style.backgroundColor]));
  assert.equal(row0.length, s0.scores.length);
  const { fmt } = await import('../../web/views/format.js');
  assert.deepEqual(row0.map(([t]) => t), Array.from(s0.scores, (x) => fmt(x, 2)), 'each cell its score');
  assert.ok(new Set(row0.map(([, c]) => c)).size > 3, 'scores of weights that read 0.00 get colours of their own');
  assert.ok(Array.from(s0.attention).filter((w) => w.toFixed(2) === '0.00').length > 3, 'weights that read 0.00');
  dec.dispose();
  g2p.dispose();
  await page.click('#scale-linear');
  assert.deepEqual(await cells(), linear);
  // On the dates model, whose weights are not all 0 or 1, the log scale gives small weights texts and
  // colours of their own.
  await page.selectOption('#model', 'dates');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('dates'));
  await page.fill('#source', '3 March 2018');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  await page.click('#scale-log');
  const small = (await cells()).filter(([w]) => w > 0 && w < 0.01);
  assert.ok(new Set(small.map(([, t]) => t)).size > 3, `weights that read 0.00 differ: ${small.map(([, t]) => t).join(' ')}`);
  small.forEach(([w, t]) => assert.equal(t, w.toExponential(0)));
  await page.click('#scale-linear');
  // The note: the dates model's "0" of the day looks at the space after "3", and the "2" of 2018 at its "0".
  assert.match(await page.textContent('#attention-note'), /looks at the space after "3"/);
  const dates = await loadModel(path.resolve('models/dates.safetensors'));
  const r = dates.translate('3 March 2018');
  assert.equal(r.text, '2018-03-03');
  const looked = (k) => { const row = Array.from(r.attention.subarray(k * r.cols, (k + 1) * r.cols)); return r.srcTokens[row.indexOf(Math.max(...row))]; };
  assert.equal(r.tgtTokens[8], '0');
  assert.equal(looked(8), ' ', 'the 0 of the day "03" looks at the space after "3"');
  assert.equal(looked(0), '0', 'the "2" of 2018 looks at its "0"');
  dates.dispose();
  assert.deepEqual(problems, []);
  await page.close();
});

test('by touch, a what-if is a tap on a cell and a tap on another cell of its row (390 px)', async () => {
  const { loadModel } = await import('../../wasm/attnseq.js');
  const { page, problems } = await openDemo(browser.ctx, srv.base, { width: 390, height: 844 });
  await page.selectOption('#model', 'en-ko');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('en-ko.safetensors'));
  await page.fill('#source', 'Jane went to the store');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  assert.match(await page.textContent('.legend.attn-only'), /by touch: tap it, then another cell of its row/);
  const tap = (row, col) => page.evaluate(([r, c]) => {
    const td = document.querySelector(`#alignment tbody td[data-row="${r}"][data-col="${c}"]`);
    const o = { bubbles: true, cancelable: true, pointerType: 'touch', isPrimary: true, button: 0 };
    td.dispatchEvent(new PointerEvent('pointerdown', o));
    td.dispatchEvent(new PointerEvent('pointerup', o));
  }, [row, col]);
  await tap(1, 1);
  await page.waitForSelector('#inspector-body[data-step="1"]');
  assert.ok(await page.$eval('#alignment tbody td[data-row="1"][data-col="1"]', (td) => td.classList.contains('picked')), 'the first tap picks the cell');
  await tap(1, 3);   // step 2 looks only at "to"
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done' && !document.getElementById('whatif-note').hidden);
  const row1 = await page.$$eval('#alignment tbody tr[data-row="1"] td[data-weight]', (tds) => tds.map((td) => Number(td.dataset.weight)));
  assert.deepEqual(row1, [0, 0, 0, 1, 0]);
  const m = await loadModel(path.resolve('models/en-ko.safetensors'));
  const dec = m.decoder(m.encode('Jane went to the store'));
  const out = [];
  for (let j = 0; !dec.done; j++) out.push(dec.step(j === 1 ? { attention: [0, 0, 0, 1, 0] } : {}).text);
  assert.equal(await page.textContent('#output'), out.filter((x) => x !== '</s>').join(' '));
  dec.dispose();
  m.dispose();
  assert.deepEqual(problems, []);
  await page.close();
});

test('two inputs side by side on one model (pronunciation has no sibling models to compare)', async () => {
  const { loadModel } = await import('../../wasm/attnseq.js');
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en'));
  await page.fill('#source', 'knight');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done');
  const m = await loadModel(path.resolve('models/g2p-en.safetensors'));
  const figs = () => page.$$eval('#compare-inputs figure', (fs) => fs.map((f) => [f.querySelector('figcaption').textContent, f.querySelector('.out span').textContent]));
  const second = await page.inputValue('#compare-input');
  assert.ok(second && second !== 'knight', 'an example fills the second input');
  assert.deepEqual(await figs(), [['“knight”', m.translate('knight').text], [`“${second}”`, m.translate(second).text]]);
  await page.fill('#compare-input', 'night');
  await page.press('#compare-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('#compare-inputs figure[data-input="b"] figcaption')?.textContent === '“night”');
  const got = await figs();
  assert.deepEqual(got, [['“knight”', m.translate('knight').text], ['“night”', m.translate('night').text]]);
  assert.equal(got[0][1], got[1][1], 'knight and night sound alike');
  m.dispose();
  assert.deepEqual(problems, []);
  await page.close();
});

test('390 x 844: the matrix, its labels and its tooltips fit the viewport, and the links view is readable (g2p-en, reverse-vanilla with h_T, en-de, Korean)', async (t) => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { width: 390, height: 844 });
  // On a phone the input comes right after the model, before the forced prefix.
  const y = (sel) => page.$eval(sel, (e) => e.getBoundingClientRect().top);
  assert.ok(await y('#model') < await y('#source') && await y('#source') < await y('#prefix'), 'model, input, then prefix');
  for (const [id, input] of [['g2p-en', 'photographers'], ['reverse-vanilla', 'abcdefghij'], ['en-de', 'A man in a red shirt is riding a bike.'], ['g2p-ko', '국물']]) {
    await page.selectOption('#model', id);
    await page.waitForFunction((x) => document.getElementById('model').value === x && !document.getElementById('play').disabled, id);
    await page.fill('#source', input);
    await page.click('#run');
    await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
    await page.$eval('#watch', (w) => w.scrollIntoView());
    const outside = await page.evaluate(() => [...document.querySelectorAll('#alignment th, #alignment td')]
      .filter((e) => { const r = e.getBoundingClientRect(); return r.left < -0.5 || r.right > innerWidth + 0.5; }).map((e) => e.textContent));
    assert.deepEqual(outside, [], `${id}: cells or labels outside the 390 px viewport`);
    if (id === 'reverse-vanilla') assert.equal(await page.locator('#alignment th.final').count(), 1, 'the h_T column is there, in view');
    // The tooltip of the leftmost and the rightmost cell of the first row stays in the viewport.
    const cells = page.locator('#alignment tbody tr:first-child td[data-col]');
    for (const [pick, cell] of [['first', cells.first()], ['last', cells.last()]]) {
      await cell.hover();
      await page.waitForFunction(() => !document.getElementById('tip').hidden);
      const tip = await page.$eval('#tip', (e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; });
      assert.ok(tip[0] >= 0 && tip[1] <= 390, `${id}: the tooltip of the ${pick} cell is within the viewport: ${tip}`);
    }
    // (A vanilla model has no attention to draw as links: its box is empty.)
    if (id === 'reverse-vanilla') {
      assert.equal(await page.locator('#links svg').count(), 0, 'no links for the vanilla model');
      continue;
    }
    // The links view is readable: its box is in the viewport, its labels are drawn at 10 px or more,
    // no two labels of a side overlap, and every label is in the box (or, for a long alignment, in
    // the drawing the box scrolls sideways).
    const links = await page.evaluate(() => {
      const box = document.getElementById('links'), svg = box.querySelector('svg'), b = box.getBoundingClientRect(), s = svg.getBoundingClientRect();
      const font = Number(svg.getAttribute('font-size')) * (s.width / svg.viewBox.baseVal.width);
      const labels = [...svg.querySelectorAll('text.label')].map((e) => {
        const r = e.getBoundingClientRect();
        return { side: e.classList.contains('src') ? 'src' : 'tgt', text: e.textContent, left: r.left, right: r.right };
      });
      return { box: [b.left, b.right], drawing: [s.left, s.right], scrolls: box.scrollWidth > box.clientWidth, font, labels };
    });
    t.diagnostic(`${id}: links box ${links.box.map(Math.round)}, labels at ${links.font.toFixed(1)} px, ${links.scrolls ? 'scrolls' : 'fits'}`);
    assert.ok(links.box[0] >= 0 && links.box[1] <= 390, `${id}: the links box ${links.box} is within the viewport`);
    assert.ok(links.font >= 10, `${id}: the links' labels are drawn at ${links.font.toFixed(1)} px (at least 10)`);
    const [lo, hi] = links.scrolls ? links.drawing : links.box;
    for (const side of ['src', 'tgt']) {
      const ls = links.labels.filter((l) => l.side === side);
      assert.ok(ls.length > 0, `${id}: the ${side} side has labels`);
      for (const l of ls) assert.ok(l.left >= lo - 0.5 && l.right <= hi + 0.5, `${id}: the ${side} label "${l.text}" [${l.left}, ${l.right}] lies within [${lo}, ${hi}]`);
      for (let i = 1; i < ls.length; i++) {
        assert.ok(ls[i].left >= ls[i - 1].right - 0.5, `${id}: the ${side} labels "${ls[i - 1].text}" and "${ls[i].text}" overlap`);
      }
    }
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('1280 x 900: a 13-letter word, and 14 letters with the vanilla model\'s h_T column, fit without scrolling sideways', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  for (const [id, input] of [['g2p-en', 'photographers'], ['reverse-vanilla', 'abcdefghijklmn']]) {
    await page.selectOption('#model', id);
    await page.waitForFunction((x) => document.getElementById('model').value === x && !document.getElementById('play').disabled, id);
    await page.fill('#source', input);
    await page.click('#run');
    await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
    const [client, scroll] = await page.evaluate(() => { const w = document.querySelector('.matrix-wrap'); return [w.clientWidth, w.scrollWidth]; });
    assert.ok(scroll <= client, `${id}: the matrix is ${scroll} px in a ${client} px column`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
