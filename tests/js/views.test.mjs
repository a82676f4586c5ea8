// The demo page's pure views (web/views/*.js) in Node: colour maps against matplotlib's viridis and
// ColorBrewer's RdBu, alignment and link geometry, strips and bars, the SVG export, number formatting,
// and the inspector's JavaScript recomputations checked against real engine steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { viridis, diverging, hex, inkFor, luminance, maxAbs, VIRIDIS_ANCHORS } from '../../web/views/colormap.js';
import { alignmentLayout, rowLinks, colLinks, matrixFigure, alignmentSVG, textWidth, showToken, tokenLabels, hangulSyllables } from '../../web/views/alignment.js';
import { linksLayout, linksRow, linksPitch, LINKS_FIT } from '../../web/views/links.js';
import { matrixFrame, growFrame, visibleCells, cellAt, visibleRows, isLargeMatrix, MIN_CELL, LARGE_CELLS } from '../../web/views/viewport.js';
import { stripLayout, barsLayout, matrixRows } from '../../web/views/vectors.js';
import { softmax, dotScores, weightedSum, maxAbsDiff, argmax, oneHot, stepFormulas, checkStep, formatDiff } from '../../web/views/inspect.js';
import { fmt, fmtP, escapeXML, safeName, joinTokens } from '../../web/views/format.js';
import { loadModel } from '../../wasm/attnseq.js';

const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);
const ALIGN = {
  srcTokens: ['Jane', 'went', 'to', 'the', 'store'], tgtTokens: ['제인이', '가게에', '갔다', '</s>'], rows: 4, cols: 5,
  attention: Float32Array.from([0.9, 0.05, 0.02, 0.02, 0.01, 0.01, 0.02, 0.02, 0.05, 0.9, 0.1, 0.6, 0.2, 0.05, 0.05, 0, 0, 0.5, 0.5, 0]),
};

test('viridis reproduces matplotlib\'s table at its anchors and is monotone in luminance', () => {
  assert.deepEqual(viridis(0), [68, 1, 84]);           // _viridis_data[0]
  assert.deepEqual(viridis(1), [253, 231, 37]);        // _viridis_data[255]
  assert.deepEqual(viridis(-3), viridis(0));           // clamped
  assert.deepEqual(viridis(7), viridis(1));
  assert.deepEqual(viridis(NaN), viridis(0));
  // The anchors are evenly spaced in t (wasm/colormap.js); at each one the map is that row, rounded.
  const n = VIRIDIS_ANCHORS.length;
  for (let k = 0; k < n; k++) assert.deepEqual(viridis(k / (n - 1)), VIRIDIS_ANCHORS[k].map((v) => Math.round(255 * v)));
  let prev = -1;
  for (let i = 0; i <= 100; i++) {
    const L = luminance(viridis(i / 100));
    assert.ok(L > prev, `luminance rises at ${i / 100}`);
    prev = L;
  }
  assert.equal(hex([68, 1, 84]), '#440154');
});

test('the diverging map is grey at zero, blue below and red above, symmetric in range', () => {
  assert.deepEqual(diverging(0, 5), [247, 247, 247]);
  const neg = diverging(-2, 2), pos = diverging(2, 2);
  assert.ok(neg[2] > neg[0], 'negative is blue');
  assert.ok(pos[0] > pos[2], 'positive is red');
  assert.deepEqual(neg, [5, 48, 97]);                 // #053061, the end of RdBu
  assert.deepEqual(pos, [103, 0, 31]);                // #67001f
  assert.deepEqual(diverging(10, 2), pos);            // clamped
  assert.deepEqual(diverging(1, 0), diverging(1, 1)); // a zero range does not divide by zero
  assert.equal(maxAbs([1, -3, 2, NaN]), 3);
  assert.equal(maxAbs([]), 0);
});

test('text colour contrasts with the cell colour', () => {
  assert.equal(inkFor(viridis(0)), '#ffffff');        // dark purple -> white text
  assert.equal(inkFor(viridis(1)), '#000000');        // yellow -> black text
});

test('alignmentLayout places one cell per weight, row-major, coloured by viridis', () => {
  const cells = alignmentLayout(ALIGN.attention, 4, 5, { cell: 20, x: 10, y: 30, gap: 2 });
  assert.equal(cells.length, 20);
  const c = cells[1 * 5 + 4];
  assert.deepEqual([c.row, c.col, c.x, c.y, c.w, c.h], [1, 4, 10 + 80, 30 + 20, 18, 18]);
  assert.equal(c.weight, ALIGN.attention[9]);
  assert.equal(c.fill, hex(viridis(ALIGN.attention[9])));
  assert.equal(c.ink, '#000000');
  const sized = alignmentLayout(ALIGN.attention, 4, 5, { width: 100, height: 40 });
  assert.deepEqual([sized[19].x, sized[19].y, sized[19].w, sized[19].h], [80, 30, 20, 10]);
  assert.equal(alignmentLayout(ALIGN.attention, 4, 5, 12)[6].x, 12);
  assert.deepEqual(alignmentLayout(new Float32Array(0), 0, 3), []);
});

test('row and column links pick the weights worth highlighting', () => {
  assert.deepEqual(rowLinks(ALIGN.attention, 4, 5, 2, 0.1).map((l) => l.col), [1, 2, 0]);
  assert.deepEqual(rowLinks(ALIGN.attention, 4, 5, 0, 0.95).map((l) => l.col), [0]);   // the argmax always
  assert.deepEqual(rowLinks(ALIGN.attention, 4, 5, 9), []);
  assert.deepEqual(colLinks(ALIGN.attention, 4, 5, 2, 0.1).map((l) => l.row), [3, 2]);
  assert.deepEqual(colLinks(ALIGN.attention, 4, 5, 4, 0.5), [{ row: 1, weight: ALIGN.attention[9] }]);
});

test('matrixFigure lays out labels around the cells; vanilla adds the h_T column', () => {
  const f = matrixFigure(ALIGN, { cell: 20, font: 10 });
  assert.equal(f.cells.length, 20);
  assert.equal(f.colLabels.length, 5);
  assert.equal(f.rowLabels.length, 4);
  assert.equal(f.colLabels[0].rotate, -45, 'word labels wider than a cell are tilted');
  for (const c of f.cells) assert.ok(c.x >= 0 && c.y >= 0 && c.x + c.w <= f.width && c.y + c.h <= f.height);
  for (const l of f.rowLabels) assert.ok(l.x > 0 && l.x <= f.cells[0].x);
  const chars = matrixFigure({ ...ALIGN, srcTokens: ['a', 'b', ' ', 'd', 'e'] }, { cell: 20, font: 10 });
  assert.equal(chars.colLabels[0].rotate, 0, 'single characters stay upright');
  assert.equal(chars.colLabels[2].text, '␣', 'a space is made visible');
  const v = matrixFigure({ ...ALIGN, attention: new Float32Array(20) }, { vanilla: true });
  assert.equal(v.cells.length, 4 * 6);
  assert.deepEqual(v.cells.filter((c) => c.kind === 'final').map((c) => c.row), [0, 1, 2, 3]);
  assert.equal(v.cells.filter((c) => c.kind === 'blind').length, 20);
  assert.equal(v.colLabels.at(-1).text, 'h_T');
  assert.ok(v.width > f.width - 1);
});

test('alignmentSVG is a standalone SVG with escaped tokens and one rect per weight', () => {
  const svg = alignmentSVG({ ...ALIGN, srcTokens: ['<a>', 'b&c', '"q"', 'd', 'e'] }, { title: 'x < y' });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+" viewBox="0 0 \d+ \d+"/);
  assert.match(svg, /<\/svg>\n$/);
  assert.ok(svg.includes('&lt;a&gt;') && svg.includes('b&amp;c') && svg.includes('&quot;q&quot;'));
  assert.ok(!svg.includes('<a>'));
  assert.ok(svg.includes('<title>x &lt; y</title>'));
  assert.equal((svg.match(/<rect /g) ?? []).length, 1 + 20);   // background + cells
  const withLegend = alignmentSVG(ALIGN, { legend: true, title: ['a very long title line that is wider than the matrix itself', 'line 2'] });
  assert.equal((withLegend.match(/<rect [^>]*><title>/g) ?? []).length, 20);
  assert.equal((withLegend.match(/<rect /g) ?? []).length, 1 + 20 + 32);   // + the 0..1 ramp
  const fig = matrixFigure(ALIGN, { legend: true, title: ['a very long title line that is wider than the matrix itself', 'line 2'] });
  assert.ok(fig.width >= textWidth('a very long title line that is wider than the matrix itself', 12), 'the title fits');
  assert.equal(fig.title.length, 2);
  assert.ok(fig.legend.swatches.at(-1).y + fig.legend.swatches.at(-1).h <= fig.height);
  assert.ok(svg.includes(`fill="${hex(viridis(ALIGN.attention[0]))}"`));
  assert.ok(!/style=/.test(svg), 'no style attributes (the page CSP forbids inline styles)');
});

test('textWidth counts Hangul as wide', () => {
  assert.equal(textWidth('ab', 10), 12);
  assert.equal(textWidth('가게', 10), 20);
  assert.equal(showToken('a b'), 'a␣b');
  assert.deepEqual(tokenLabels(['the', 'cat', 'the', ' ']), ['the #1', 'cat', 'the #3', '␣']);
});

test('linksLayout draws a line per weight worth drawing, heaviest last', () => {
  const lay = linksLayout(ALIGN, { width: 500, height: 120, min: 0.05 });
  assert.equal(lay.src.length, 5);
  assert.equal(lay.tgt.length, 4);
  const expected = Array.from(ALIGN.attention).filter((w) => w >= 0.05).length;
  assert.equal(lay.links.length, expected);
  for (let i = 1; i < lay.links.length; i++) assert.ok(lay.links[i].weight >= lay.links[i - 1].weight);
  for (const l of lay.links) {
    assert.equal(l.x1, lay.src[l.col].x);
    assert.equal(l.x2, lay.tgt[l.row].x);
    assert.ok(l.x1 > 0 && l.x1 < 500 && l.y1 < l.y2 && l.y2 < 120);
  }
  const top = lay.links.at(-1);
  assert.ok(top.strokeWidth > lay.links[0].strokeWidth && top.opacity > lay.links[0].opacity);
});

// A long input's alignment (web/views/viewport.js): 300 source characters, 101 output tokens.
const LONG = {
  srcTokens: Array.from({ length: 300 }, (_, i) => 'abcdefghijklmnopqrst'[i % 20]),
  tgtTokens: Array.from({ length: 101 }, (_, i) => (i === 100 ? '</s>' : 'tsrqponmlkjihgfedcba'[i % 20])),
  rows: 101, cols: 300,
};

test('matrixFrame: cells never under MIN_CELL, every column at full size, frozen label bands', () => {
  const f = matrixFrame(LONG, { cell: 4, font: 11 });
  assert.equal(f.cell, MIN_CELL, 'a smaller cell is raised to the minimum');
  assert.equal(f.width, f.left + 300 * MIN_CELL);
  assert.equal(f.height, f.top + 101 * MIN_CELL);
  assert.equal(f.rotate, false, 'single characters stay upright');
  assert.ok(f.left >= textWidth('</s>', 11), 'the row band fits the widest output label');
  const v = matrixFrame(LONG, { vanilla: true });
  assert.equal(v.cols, 301);
  assert.equal(v.colNames.at(-1), 'h_T');
  assert.equal(v.rotate, false, 'the h_T column does not tilt the character labels');
  const words = matrixFrame({ ...LONG, srcTokens: LONG.srcTokens.map((c) => c.repeat(40)) }, { font: 10 });
  assert.equal(words.rotate, true, 'word labels wider than a cell are tilted');
  assert.ok(words.top <= Math.ceil(100 * Math.SQRT1_2 + 10) + 6, 'a 40-character label is capped at 10 em');
  assert.equal(isLargeMatrix(101, 300), true);
  assert.equal(isLargeMatrix(4, 5), false, 'the demo sentence stays an SVG');
  assert.equal(isLargeMatrix(1, LARGE_CELLS), false);
});

test('growFrame: a frame grown a row at a time is the frame of the whole matrix (the live window grows per step)', () => {
  // Rows whose labels widen the row band on the way (a long label, then one past the 10 em cap).
  const tgt = LONG.tgtTokens.map((t, i) => (i === 40 ? 'longer-label' : i === 70 ? 'x'.repeat(200) : t));
  for (const opts of [{ cell: 18, font: 12 }, { vanilla: true }]) {
    const whole = { ...LONG, tgtTokens: tgt };
    let f = matrixFrame({ ...whole, rows: 0 }, opts);
    const lefts = new Set();
    for (let k = 1; k <= whole.rows; k++) {
      f = growFrame(f, { ...whole, rows: k });
      lefts.add(f.left);
      if (k % 25 === 0 || k === 41 || k === 71) assert.deepEqual(f, matrixFrame({ ...whole, rows: k }, opts), `after ${k} rows (${JSON.stringify(opts)})`);
    }
    assert.deepEqual(f, matrixFrame(whole, opts));
    assert.ok(lefts.size >= 3, 'the row band widened as longer labels arrived');
  }
});

test('visibleCells and cellAt: a scrolled window draws only its cells, and finds them again', () => {
  const f = matrixFrame(LONG, { cell: 18, font: 12 });
  const w = 600, h = 400;
  const start = visibleCells(f, 0, 0, w, h);
  assert.deepEqual([start.r0, start.c0], [0, 0]);
  assert.equal(start.c1, Math.ceil((w - f.left) / 18));
  assert.equal(start.r1, Math.ceil((h - f.top) / 18));
  const sx = f.width - w, sy = f.height - h;   // scrolled to the far corner
  const end = visibleCells(f, sx, sy, w, h);
  assert.deepEqual([end.r1, end.c1], [101, 300], 'the last row and column are in view');
  assert.ok((end.r1 - end.r0) * (end.c1 - end.c0) < 40 * 40, 'a view of cells, not the whole matrix');
  // Every drawn cell's centre maps back to that cell; the label bands map to nothing.
  for (const [sX, sY] of [[0, 0], [1234, 567], [sx, sy]]) {
    const v = visibleCells(f, sX, sY, w, h);
    for (const k of [v.r0, Math.floor((v.r0 + v.r1) / 2), v.r1 - 1]) {
      for (const t of [v.c0, Math.floor((v.c0 + v.c1) / 2), v.c1 - 1]) {
        const x = f.left + t * f.cell - sX + f.cell / 2, y = f.top + k * f.cell - sY + f.cell / 2;
        if (x < f.left || y < f.top || x >= w || y >= h) continue;   // (under a label band or cut off)
        assert.deepEqual(cellAt(f, x, y, sX, sY), { row: k, col: t });
      }
    }
  }
  assert.equal(cellAt(f, f.left - 1, 200, 0, 0), null);
  assert.equal(cellAt(f, 200, f.top - 1, 0, 0), null);
  assert.equal(cellAt(f, f.left + 300 * f.cell + 1, f.top + 1, 0, 0), null, 'past the last column');
  assert.equal(cellAt(f, f.left + 1, f.top + 101 * f.cell + 1, 0, 0), null, 'past the last row');
  assert.deepEqual(visibleCells(f, -50, -50, w, h).c0, 0, 'clamped');
});

test('visibleRows: the window of a long list, with a few rows either side', () => {
  assert.deepEqual(visibleRows(300, 30, 0, 300, 4), { i0: 0, i1: 14 });
  assert.deepEqual(visibleRows(300, 30, 3000, 300, 4), { i0: 96, i1: 114 });
  assert.deepEqual(visibleRows(300, 30, 9000, 300, 4), { i0: 296, i1: 300 });
  assert.deepEqual(visibleRows(5, 30, 0, 300, 4), { i0: 0, i1: 5 });
  assert.deepEqual(visibleRows(0, 30, 0, 300), { i0: 0, i1: 0 });
});

test('links with a fixed pitch: readable spacing, and appending a row gives the full layout', () => {
  assert.equal(linksPitch(['a', 'b']), 16, 'characters get the 16 px minimum');
  assert.ok(linksPitch(['photosynthesis']) > 16 && linksPitch(['photosynthesis']) <= 120);
  assert.equal(linksPitch(['x'.repeat(200)]), 120);
  assert.ok(LINKS_FIT * 40 < 1000, 'spread layouts are short ones');
  const att = new Float32Array(4 * 30);
  for (let k = 0; k < 4; k++) for (let t = 0; t < 30; t++) att[k * 30 + t] = t === 29 - k ? 0.7 : t === 28 - k ? 0.3 : 0;
  const r = { srcTokens: Array.from({ length: 30 }, (_, i) => `s${i}`), tgtTokens: ['a', 'b', 'c', 'd'], attention: att, rows: 4, cols: 30 };
  const full = linksLayout(r, { pitch: 20, height: 130 });
  assert.equal(full.width, 30 * 20);
  assert.deepEqual(full.src.slice(0, 3).map((x) => x.x), [10, 30, 50]);
  assert.deepEqual(full.tgt.map((x) => x.x), [10, 30, 50, 70], 'output tokens share the pitch: they do not move as rows arrive');
  // Two rows laid out, then rows 2 and 3 appended: the same lines and labels as the full layout.
  const part = linksLayout({ ...r, rows: 2 }, { pitch: 20, height: 130 });
  const added = [2, 3].map((k) => linksRow(r, k, part));
  const key = (l) => [l.row, l.col, l.x1, l.y1, l.x2, l.y2, l.weight, l.stroke].join();
  assert.deepEqual([...part.links, ...added.flatMap((x) => x.links)].map(key).sort(), full.links.map(key).sort());
  assert.deepEqual(added.map((x) => x.tgt), full.tgt.slice(2));
  assert.equal(added[1].width, full.width);
  const longer = linksRow({ ...r, rows: 40, tgtTokens: Array(40).fill('x'), attention: new Float32Array(40 * 30) }, 39, part);
  assert.equal(longer.width, 40 * 20, 'more rows than columns widen the layout');
  assert.throws(() => linksRow(r, 2, linksLayout(r, { width: 500 })), /fixed pitch/);
});

test('strips and bars', () => {
  const s = stripLayout([-2, 0, 1, 2], { width: 8 });
  assert.equal(s.length, 4);
  assert.deepEqual(s.map((r) => r.x), [0, 2, 4, 6]);
  assert.equal(s.reduce((a, r) => a + r.w, 0), 8);
  assert.equal(s[1].fill, hex(diverging(0, 2)));
  assert.equal(s[0].fill, hex(diverging(-2, 2)));
  assert.equal(stripLayout([1, 2], { max: 4 })[1].fill, hex(diverging(2, 4)));
  const signed = barsLayout([-4, 2, 0], { signed: true, width: 100 });
  assert.deepEqual(signed.map((b) => [b.x, b.w]), [[0, 50], [50, 25], [50, 0]]);
  const plain = barsLayout([0.5, 1, 0.25], { max: 1, width: 10 });
  assert.deepEqual(plain.map((b) => b.w), [5, 10, 2.5]);
  assert.equal(plain[1].fill, hex(viridis(1)));
  assert.deepEqual(barsLayout([NaN], {})[0].w, 0);
  const rows = matrixRows(Float32Array.from([1, 2, 3, 4, 5, 6]), 2, 3);
  assert.deepEqual(rows.map((r) => Array.from(r)), [[1, 2, 3], [4, 5, 6]]);
});

test('number formatting, escaping and file names', () => {
  assert.equal(fmt(0.12345), '0.123');
  assert.equal(fmt(-12.345), '-12.3');
  assert.equal(fmt(1234.5), '1.2e+3');
  assert.equal(fmt(1e-7), '1e-7');
  assert.equal(fmt(0), '0.000');
  assert.equal(fmtP(0.00001), '<0.001');
  assert.equal(fmtP(1), '1.000');
  assert.equal(escapeXML(`<&>"'`), '&lt;&amp;&gt;&quot;&apos;');
  assert.equal(safeName('Jane went / to the store?'), 'Jane-went-to-the-store');
  assert.equal(safeName('제인이 가게'), '제인이-가게');
  assert.equal(safeName('///'), 'attnseq');
  assert.equal(joinTokens(['2', '0'], 'char'), '20');
  assert.equal(joinTokens(['a', 'b'], 'word'), 'a b');
});

test('inspector math: softmax, scores, context and one-hot rows', () => {
  const p = softmax([1, 2, 3]);
  assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(p[2] > p[1] && p[1] > p[0]);
  assert.deepEqual(softmax([1000, 1000]), [0.5, 0.5]);
  const H = [1, 0, 0, 1, 2, 2];                      // h_1 = (1, 0), h_2 = (0, 1), h_3 = (2, 2)
  assert.deepEqual(dotScores([3, 4], H, 3, 2), [3, 4, 14]);
  assert.deepEqual(weightedSum([0.5, 0.5, 0], H, 3, 2), [0.5, 0.5]);
  assert.equal(maxAbsDiff([1, 2], [1, 2.5]), 0.5);
  assert.equal(maxAbsDiff([1], [1, 2]), Infinity);
  assert.equal(argmax([0.1, 0.7, 0.2]), 1);
  assert.deepEqual(oneHot(4, 2), [0, 0, 1, 0]);
});

test('formulas follow the model configuration', () => {
  const luong = stepFormulas({ style: 'luong', score: 'dot', inputFeeding: false });
  assert.equal(luong.query, 'Q = S_k');
  assert.equal(luong.score, 'score_i = ⟨Q, h_i⟩');
  assert.equal(luong.context, 'c_k = Σ_i w_{ki} h_i');
  assert.match(stepFormulas({ style: 'luong', score: 'general' }).score, /W_a/);
  assert.match(stepFormulas({ style: 'luong', score: 'additive' }).score, /tanh/);
  assert.match(stepFormulas({ style: 'luong', score: 'dot', inputFeeding: true }).state, /h̃_\{k-1\}/);
  const b = stepFormulas({ style: 'bahdanau', score: 'additive' });
  assert.equal(b.query, 'Q = S_{k-1}');
  assert.match(b.state, /c_k/);
  const v = stepFormulas({ style: 'none', score: 'dot' });
  assert.equal(v.attention, false);
  assert.equal(v.query, 'S_0 = h_T');
  assert.equal(v.score, null);
});

test('formatDiff: a float32-vs-float64 underflow reads as below 1e-12, a real difference as itself', () => {
  // A peaked softmax: the engine (float32) rounds the far weight to 0, float64 keeps exp(-320).
  const w = softmax([0, -320]);
  const d = maxAbsDiff(w, [1, 0]);
  assert.ok(d > 0 && d < 1e-100, `d = ${d}`);
  assert.equal(formatDiff(d), '< 1e-12');
  assert.equal(formatDiff(0), '0');
  assert.equal(formatDiff(3.5e-8), '3.5e-8');  // float32 rounding of a weight near 1: shown as it is
  assert.equal(formatDiff(0.25), '2.5e-1');
  assert.equal(formatDiff(Infinity), 'Infinity');  // lengths that differ (maxAbsDiff)
});

test('checkStep agrees with real engine steps (dot, general, bahdanau) and flags an override', async () => {
  for (const name of ['gru_luong_dot', 'gru_luong_general', 'gru_bahdanau_additive', 'gru_bi_luong_dot']) {
    const model = await loadModel(FIX(name));
    const enc = model.encode('w5 w6 w7 w8 w4');
    const mem = enc.memory();
    const dec = model.decoder(enc, { topk: 3 });
    for (let k = 0; k < 3 && !dec.done; k++) {
      const r = dec.step();
      const checks = checkStep(r, mem, model.config);
      assert.ok(checks.length >= 2, name);
      for (const c of checks) assert.ok(c.ok, `${name} step ${k}: ${c.what} off by ${c.diff}`);
      assert.equal(checks.some((c) => c.what.startsWith('⟨Q')), model.config.score === 'dot', name);
    }
    if (!dec.done) {
      const r = dec.step({ attention: oneHot(5, 2) });
      const checks = checkStep(r, mem, model.config, true);
      assert.ok(!checks.some((c) => c.what.startsWith('softmax')), 'an overridden row is not a softmax');
      assert.ok(checks.find((c) => c.what.startsWith('Σ')).ok, 'the context still follows the (overridden) weights');
    }
    dec.dispose();
    enc.dispose();
    model.dispose();
  }
  const vanilla = await loadModel(FIX('gru_none'));
  const enc = vanilla.encode('w5 w6');
  assert.deepEqual(checkStep(vanilla.decoder(enc).step(), enc.memory(), vanilla.config), []);
  vanilla.dispose();
});

test('hangulSyllables: jamo read from Hangul group under their syllable; other tokens stand alone; no jamo, no groups', () => {
  const jamo = (s) => [...s.normalize('NFD')];
  // 국물 as a jamo model reads it (3 + 3 letters), then a space and a bare compatibility letter ㅋ.
  const toks = [...jamo('국물'), ' ', 'ㅋ', ...jamo('아')];
  assert.deepEqual(hangulSyllables(toks), [
    { text: '국', first: 0, count: 3 }, { text: '물', first: 3, count: 3 },
    { text: '', first: 6, count: 1 }, { text: '', first: 7, count: 1 }, { text: '아', first: 8, count: 2 },
  ]);
  // A final consonant that starts no syllable, a vowel alone, a leading consonant at the end: no group spans them.
  assert.deepEqual(hangulSyllables(['\u11A8', '\u1161', '\u1100']), null);
  assert.equal(hangulSyllables([...'house']), null);
  assert.equal(hangulSyllables(['국', '물']), null, 'precomposed syllables (a syllable model) are their own columns');
  assert.equal(hangulSyllables([]), null);
});
