// Long inputs on the real page (issue 9, items 1 and 8), with the reverse model and 300 letters:
// Run to end gives the page a frame between every two steps (counted, not timed: the suite asserts
// nothing on a clock), the longest main-thread task of Search with beam 16, Step and Run to end is
// reported (longtask entries of a buffered PerformanceObserver, as test diagnostics), and the page
// still shows the package's numbers; the compare and beam small multiples and the links view keep readable cells and token
// spacing (they scroll) instead of squashing 300 columns into stripes; drawn cells are checked
// pixel by pixel against viridis of the package's weights. Screenshots: test-output/browser/long-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo, panelErrors, OUT, pickModel } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';
import { viridis } from '../../wasm/colormap.js';
import { fmt } from '../../web/views/format.js';
import { colLinks, tokenLabels } from '../../web/views/alignment.js';
import { argmax } from '../../web/views/inspect.js';

const SRC = 'abcdefghijklmnopqrst'.repeat(15);   // 300 letters, the input
const READABLE = 14;                             // px: the smallest cell that still reads as a cell
const PITCH = 16;                                // px: the closest two token labels of the links view may be
const LONG_WAIT = { timeout: 120000 };

let srv, browser, reverse, vanilla;
before(async () => {
  srv = await startServer();
  browser = await launch();
  reverse = await loadModel(await readFile(path.resolve('models/reverse.safetensors')));
  vanilla = await loadModel(await readFile(path.resolve('models/reverse-vanilla.safetensors')));
});
after(async () => {
  reverse?.dispose();
  vanilla?.dispose();
  await browser?.close();
  srv?.server.close();
});

async function openLong(t) {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  assert.deepEqual(await panelErrors(page), [], 'both panels load on the demo page');
  await pickModel(page, 'reverse', SRC);
  // Every main-thread task over 50 ms from now on (the page's own loading is not measured).
  await page.evaluate(() => {
    window.longTasks = [];
    window.sinceMark = performance.now();
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.startTime >= window.sinceMark) window.longTasks.push({ start: Math.round(e.startTime), ms: Math.round(e.duration) });
    }).observe({ type: 'longtask', buffered: true });
    window.frameCount = 0;   // animation frames the page has had time to render
    const tick = () => { window.frameCount++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  t.after(() => page.close());
  return { page, problems };
}

// The long tasks seen since the last call (after two more frames, so that rendering has happened).
async function tasksOf(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(200);   // lets the observer deliver the last entries
  return page.evaluate(() => window.longTasks.splice(0));
}

// Rows of the live alignment: the canvas window's (a long source) or the table's.
const ROWS = () => Number(document.querySelector('#watch .mview.live')?.dataset.rows ?? document.querySelectorAll('#alignment tbody tr').length);
const rowCount = (page) => page.evaluate(ROWS);
const waitRows = (page, n) => page.waitForFunction(`(${ROWS})() === ${n}`, null, LONG_WAIT);
const worst = (tasks) => Math.max(0, ...tasks.map((x) => x.ms));

test('300 letters, beam 16: Run to end yields a frame per step; Search, Step and Run to end report their longest main-thread task', async (t) => {
  const { page, problems } = await openLong(t);
  const seen = {};
  const check = async (what) => {
    seen[what] = worst(await tasksOf(page));
    t.diagnostic(`${what}: longest main-thread task ${seen[what]} ms (longtask entries are tasks over 50 ms)`);
  };

  // Search: beam 16 over the long input.
  await page.fill('#beam-size', '16');
  await page.click('#beam-run');
  await page.waitForFunction(() => document.getElementById('beam').dataset.state === 'done', null, LONG_WAIT);
  await check('Search (beam 16)');
  const beam = reverse.translate(SRC, { beam: 16 });
  assert.deepEqual(await page.$$eval('#beam-results > li .hyp-text', (els) => els.map((e) => e.textContent)), beam.hypotheses.map((x) => x.text || '(empty)'));

  // Step, three times: each press adds one row in short tasks (the first encodes in one task, steps in
  // the next and draws the inspector in a third: web/controller/playback.js, inspector.js).
  for (let k = 1; k <= 3; k++) {
    await page.click('#step');
    await waitRows(page, k);
    await check(`Step ${k}`);
  }

  // Run to end, then the compare and beam views it refreshes (beam 16 again). Each step waits for a
  // frame of its own (web/controller/playback.js), so the page renders at least once per step
  // however slow the machine: a run that kept the main thread to itself would show a handful.
  const rowsBefore = await rowCount(page), framesBefore = await page.evaluate(() => window.frameCount);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done', null, LONG_WAIT);
  const stepsRun = (await rowCount(page)) - rowsBefore, frames = (await page.evaluate(() => window.frameCount)) - framesBefore;
  assert.ok(stepsRun > 50, `Run to end ran ${stepsRun} steps`);
  assert.ok(frames >= stepsRun - 1, `${frames} frames rendered during ${stepsRun} steps of Run to end`);
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done' && document.getElementById('beam').dataset.state === 'done', null, LONG_WAIT);
  await check('Run to end (with compare and beam)');

  // What the page shows is still the engine's decode: the output, and the drawn cells are its weights.
  const greedy = reverse.translate(SRC);
  assert.equal(await rowCount(page), greedy.rows);
  assert.equal(await page.textContent('#output'), greedy.text);
  const live = '#watch .mview.live';
  for (const [k, c] of probeCells(greedy)) {
    const px = await cellPixel(page, live, k, c);
    const want = viridis(greedy.attention[k * greedy.cols + c]);
    assert.ok(px.every((v, i) => Math.abs(v - want[i]) <= 2), `live matrix cell (${k}, ${c}): drew ${px}, want ${want}`);
  }
  await tasksOf(page);

  // Hovering a cell, then its source token, of the 101 x 300 matrix: tips with the engine's numbers.
  // (Row 50's heaviest column, so that the column has links to list.)
  const k = 50, c = argmax(greedy.attention.subarray(k * greedy.cols, (k + 1) * greedy.cols));
  const at = await page.$eval(live, (box, [k, c]) => {
    const d = box.dataset, cell = Number(d.cell);
    box.scrollLeft = c * cell - (box.clientWidth - Number(d.left)) / 2;
    box.scrollTop = k * cell - (box.clientHeight - Number(d.top)) / 2;
    const b = box.getBoundingClientRect();
    return { x: b.left + Number(d.left) + c * cell + cell / 2 - box.scrollLeft, y: b.top + Number(d.top) + k * cell + cell / 2 - box.scrollTop, top: b.top + Number(d.top) / 2 };
  }, [k, c]);
  const labels = tokenLabels(greedy.srcTokens);
  await page.mouse.move(at.x, at.y);
  assert.equal(await page.textContent('#tip'), `${greedy.tgtTokens[k]} ← ${labels[c]}: w = ${fmt(greedy.attention[k * greedy.cols + c], 4)}`);
  await page.mouse.move(at.x, at.top);
  const looked = colLinks(greedy.attention, greedy.rows, greedy.cols, c, 0.1).map((x) => `${greedy.tgtTokens[x.row]} ${fmt(x.weight, 3)}`);
  assert.equal(await page.textContent('#tip'), `“${labels[c]}” is looked at by: ${looked.join(', ')}`);
  await check('hover');

  // The keyboard reaches the window: arrows move a cursor (its tip shows the weight), Enter inspects the row.
  await page.mouse.move(0, 0);
  await page.focus(live);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowRight');
  const kr = greedy.rows - 2;
  await page.waitForFunction((want) => document.getElementById('tip').textContent === want, `${greedy.tgtTokens[kr]} ← ${labels[1]}: w = ${fmt(greedy.attention[kr * greedy.cols + 1], 4)}`);
  await page.keyboard.press('Enter');
  assert.match(await page.textContent('#inspector-title'), new RegExp(`^Step ${kr + 1} of ${greedy.rows}: `));
  assert.equal(await page.getAttribute('#inspector-body', 'data-step'), String(kr));

  assert.equal(await page.locator('#beam-results > li').count(), beam.hypotheses.length);
  await page.locator('#watch').screenshot({ path: path.join(OUT, 'long-watch.png') });
  t.diagnostic(`worst main-thread task per action (ms, 0 = none over 50 ms): ${JSON.stringify(seen)}`);
  assert.deepEqual(problems, []);
});

// Cells worth sampling: the corners, and the heaviest cell of the first, middle and last rows
// (bright, among dark ones: a cell drawn in the wrong place shows).
function probeCells(r) {
  const heaviest = (k) => [k, argmax(r.attention.subarray(k * r.cols, (k + 1) * r.cols))];
  return [[0, 0], [r.rows - 1, r.cols - 1], heaviest(0), heaviest(Math.floor(r.rows / 2)), heaviest(r.rows - 1)];
}

// The canvas window's pixel at the centre of cell (row, col), once the window has drawn the view
// that has the cell in it (its data-view says which scroll position it drew last).
async function cellPixel(page, sel, row, col) {
  return page.$eval(sel, (box, [row, col]) => new Promise((resolve) => {
    const d = box.dataset, cell = Number(d.cell), left = Number(d.left), top = Number(d.top);
    box.scrollIntoView({ block: 'nearest' });
    box.scrollLeft = col * cell - (box.clientWidth - left) / 2;
    box.scrollTop = row * cell - (box.clientHeight - top) / 2;
    const read = () => {
      if (box.dataset.view !== `${box.scrollLeft},${box.scrollTop}`) return requestAnimationFrame(read);
      const x = left + col * cell + cell / 2 - box.scrollLeft, y = top + row * cell + cell / 2 - box.scrollTop;
      const canvas = box.querySelector('canvas');
      const s = canvas.width / canvas.clientWidth;
      resolve(Array.from(canvas.getContext('2d').getImageData(Math.floor(x * s), Math.floor(y * s), 1, 1).data.slice(0, 3)));
    };
    requestAnimationFrame(read);
  }), [row, col]);
}

test('300 letters: the links view keeps its tokens readable and scrolls', async (t) => {
  const { page, problems } = await openLong(t);
  // After two steps: 300 source tokens at a readable pitch, in a box that scrolls.
  for (let k = 1; k <= 2; k++) {
    await page.click('#step');
    await waitRows(page, k);
  }
  const links = await page.$eval('#links', (box) => {
    const x = (col) => { const r = box.querySelector(`text.src[data-col="${col}"]`).getBoundingClientRect(); return r.left + r.width / 2; };
    return { pitch: x(1) - x(0), far: x(299) - x(298), scrolls: box.scrollWidth > box.clientWidth + 100, labels: box.querySelectorAll('text.src').length };
  });
  assert.equal(links.labels, 300);
  assert.ok(links.pitch >= PITCH && links.far >= PITCH, `source tokens in the links view are ${links.pitch.toFixed(1)} px apart (at least ${PITCH} wanted)`);
  assert.ok(links.scrolls, 'the links view scrolls sideways');
  await page.locator('.links-fig').screenshot({ path: path.join(OUT, 'long-links.png') });
  assert.deepEqual(problems, []);
});

test('300 letters: the compare and beam small multiples keep readable cells and scroll', async (t) => {
  const { page, problems } = await openLong(t);
  const greedy = reverse.translate(SRC), plain = vanilla.translate(SRC), beam = reverse.translate(SRC, { beam: 2 });

  // Compare and beam (2 hypotheses): every matrix is a scrolling window with cells of at least READABLE px.
  await page.click('#compare-run');
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done', null, LONG_WAIT);
  await page.fill('#beam-size', '2');
  await page.click('#beam-run');
  await page.waitForFunction(() => document.getElementById('beam').dataset.state === 'done', null, LONG_WAIT);
  // Screenshots of both sections as they open (each window drawn: it draws when near the viewport).
  for (const [id, file] of [['compare', 'long-compare.png'], ['beam', 'long-beam.png']]) {
    await page.$eval(`#${id}`, (sec) => new Promise((resolve) => {
      sec.scrollIntoView();
      // (the two-inputs figures at the section's end draw when scrolled to, like any window)
      const wait = () => ([...sec.querySelectorAll('.mview')].filter((b) => !b.closest('#compare-inputs')).every((b) => b.dataset.view) ? resolve() : requestAnimationFrame(wait));
      wait();
    }));
    await page.locator(`#${id}`).screenshot({ path: path.join(OUT, file) });
  }
  const figures = [
    ['#compare-vanilla figure[data-style="none"]', plain, true], ['#compare-vanilla figure[data-style="luong"]', greedy, false],
    ['#compare-scores figure[data-model="reverse"]', greedy, false],
    ...beam.hypotheses.map((x, i) => [`#beam-results > li:nth-child(${i + 1})`, x, false]),
  ];
  const [blind, final] = await page.evaluate(() => ['--blind', '--final'].map((name) => {
    const hexColour = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return [1, 3, 5].map((i) => parseInt(hexColour.slice(i, i + 2), 16));
  }));
  for (const [sel, r, isVanilla] of figures) {
    const geo = await page.$eval(sel, (fig) => {
      const box = fig.querySelector('.mview');
      if (!box) {
        const rect = fig.querySelector('svg rect.cell')?.getBoundingClientRect();
        return { window: false, shown: rect ? rect.width : 0 };
      }
      const size = box.querySelector('.mview-size').getBoundingClientRect();
      return {
        window: true, cell: Number(box.dataset.cell), rows: Number(box.dataset.rows), cols: Number(box.dataset.cols), left: Number(box.dataset.left),
        width: size.width, scrollsX: box.scrollWidth > box.clientWidth, scrollsY: box.scrollHeight > box.clientHeight,
        canvasW: box.querySelector('canvas').clientWidth, boxW: box.clientWidth,
      };
    });
    assert.ok(geo.window, `${sel}: a 300-column matrix is a scrolling window, not an SVG squashed to ${geo.shown?.toFixed(1)} px cells`);
    assert.ok(geo.cell >= READABLE, `${sel}: cells of ${geo.cell} px`);
    assert.deepEqual([geo.rows, geo.cols], [r.rows, r.cols + (isVanilla ? 1 : 0)], `${sel}: the matrix's shape`);
    assert.equal(Math.round(geo.width), geo.left + geo.cols * geo.cell, `${sel}: the scrollable content has every column at full size`);
    assert.ok(geo.scrollsX && geo.scrollsY, `${sel}: the window scrolls both ways`);
    assert.ok(geo.canvasW <= geo.boxW, `${sel}: the canvas is no wider than its window (${geo.canvasW} vs ${geo.boxW})`);
    // The cells drawn are the weights (after scrolling each into view).
    for (const [k, c] of isVanilla ? [[0, 0], [r.rows - 1, r.cols - 1], [Math.floor(r.rows / 2), 150]] : probeCells(r)) {
      const px = await cellPixel(page, `${sel} .mview`, k, c);
      const want = isVanilla ? null : viridis(r.attention[k * r.cols + c]);
      if (want) assert.ok(px.every((v, i) => Math.abs(v - want[i]) <= 2), `${sel} cell (${k}, ${c}): drew ${px}, want viridis(${r.attention[k * r.cols + c]}) = ${want}`);
      else assert.deepEqual(px, blind, `${sel} cell (${k}, ${c}): a blind cell has the page's --blind colour`);
    }
    if (isVanilla) {
      const hT = await cellPixel(page, `${sel} .mview`, 0, r.cols);
      assert.deepEqual(hT, final, 'the h_T column has the page\'s --final colour');
    }
  }

  assert.deepEqual(problems, []);
});
