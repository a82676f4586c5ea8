// The train panel's and the length study's pure parts, in Node: viridis against matplotlib's table,
// the loss-curve, matrix and accuracy-chart layouts, the task presets, and the study's seeded data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { viridisRGB, viridis, inkOn } from '../../web/train/colors.js';
import { lossCurveLayout, matrixLayout, niceTicks, logTicks, tokenWidth, fmt } from '../../web/train/layout.js';
import { TASKS, trainerOptions, modelLabel, modelFileName } from '../../web/train/tasks.js';
import { accuracyChartLayout } from '../../web/study/layout.js';
import { mulberry32, reverseSet, lengthGrid, scoreReverse, reverseString, ALPHABET } from '../../web/study/data.js';

// Rows of matplotlib's _viridis_data (lib/matplotlib/_cm_listed.py) that are NOT anchors.
const MPL_ROWS = {
  4: [0.272594, 0.025563, 0.353093], 100: [0.166617, 0.463708, 0.558119], 127: [0.128729, 0.563265, 0.551229],
  150: [0.128087, 0.647749, 0.523491], 230: [0.741388, 0.873449, 0.149561], 244: [0.886271, 0.892374, 0.095374],
  247: [0.916242, 0.896091, 0.100717], 252: [0.964894, 0.902323, 0.123941],
};
const pathPoints = (d) => [...d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

test('viridis: endpoints, monotone lightness, within 1.2/255 of matplotlib between anchors', () => {
  assert.deepEqual(viridisRGB(0), [68, 1, 84]);
  assert.deepEqual(viridisRGB(1), [253, 231, 37]);
  assert.deepEqual(viridisRGB(128 / 255), [33, 145, 140]);  // _viridis_data[128], rounded
  assert.deepEqual(viridisRGB(-3), viridisRGB(0));
  assert.deepEqual(viridisRGB(7), viridisRGB(1));
  assert.deepEqual(viridisRGB(NaN), viridisRGB(0));
  assert.equal(viridis(0), 'rgb(68, 1, 84)');
  for (const [row, rgb] of Object.entries(MPL_ROWS)) {
    const got = viridisRGB(row / 255);
    rgb.forEach((v, k) => assert.ok(Math.abs(got[k] - v * 255) <= 0.62 + 0.5, `row ${row} channel ${k}: ${got[k]} vs ${v * 255}`));
  }
  let prev = -1;
  for (let i = 0; i <= 100; i++) {
    const [r, g, b] = viridisRGB(i / 100);
    const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    assert.ok(y > prev, `luminance rises at ${i}`);
    prev = y;
  }
  assert.equal(inkOn(0), '#fff');
  assert.equal(inkOn(1), '#000');
});

test('ticks: nice linear and log ticks', () => {
  assert.deepEqual(niceTicks(0, 300, 5), [0, 100, 200, 300]);
  assert.deepEqual(niceTicks(0, 300, 6), [0, 50, 100, 150, 200, 250, 300]);
  assert.deepEqual(niceTicks(0, 1, 4), [0, 0.5, 1]);
  assert.deepEqual(niceTicks(0, 1, 5), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(logTicks(0.1, 10), [0.1, 0.3, 1, 3, 10]);
  assert.deepEqual(logTicks(0.2, 0.9), [0.2, 0.5]);
  assert.equal(fmt(1500), '1.5k');
  assert.equal(fmt(0.05), '0.05');
});

test('lossCurveLayout: empty, one point, log scale and frame bounds', () => {
  const e = lossCurveLayout([], 400, 200);
  assert.equal(e.path, '');
  assert.equal(e.count, 0);
  assert.equal(e.width, 400);
  const one = lossCurveLayout([{ step: 10, loss: 2 }], 400, 200);
  assert.equal(pathPoints(one.path).length, 1);
  const pts = Array.from({ length: 50 }, (_, i) => ({ step: (i + 1) * 10, loss: 3 * Math.exp(-i / 10) }));
  const L = lossCurveLayout(pts, 400, 200);
  const { x, y, w, h } = L.plot;
  assert.equal(x + w + 10, 400);
  for (const [px, py] of pathPoints(L.path)) {
    assert.ok(px >= x - 1e-9 && px <= x + w + 1e-9, `x ${px}`);
    assert.ok(py >= y - 1e-9 && py <= y + h + 1e-9, `y ${py}`);
  }
  // Falling loss -> the path goes down the screen (y grows); the last point ends at the right edge.
  const xy = pathPoints(L.path);
  assert.ok(xy[xy.length - 1][1] > xy[0][1]);
  assert.equal(L.last.cx, x + w);
  // Log scale: equal loss ratios are equal pixel distances.
  const Y = (l) => { const [lo, hi] = L.domain.y; return y + h - ((Math.log10(l) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * h; };
  assert.ok(Math.abs((Y(0.1) - Y(1)) - (Y(1) - Y(10))) < 1e-9);
  assert.ok(L.domain.y[0] <= Math.min(...pts.map((p) => p.loss)) && L.domain.y[1] >= 3);
  // Ticks are inside the plot and increasing (x) / decreasing on screen (y).
  assert.ok(L.yTicks.length >= 2 && L.xTicks.length >= 2);
  L.yTicks.forEach((t) => assert.ok(t.y >= y - 1e-6 && t.y <= y + h + 1e-6));
  for (let i = 1; i < L.xTicks.length; i++) assert.ok(L.xTicks[i].x > L.xTicks[i - 1].x);
});

test('lossCurveLayout: xMax fixes the axis, bad values are skipped, long runs are decimated', () => {
  const L = lossCurveLayout([{ step: 100, loss: 1 }, { step: 200, loss: 0.5 }], 400, 200, { xMax: 1000 });
  assert.equal(L.domain.x[1], 1000);
  assert.ok(L.last.cx < L.plot.x + L.plot.w / 2);
  assert.equal(L.xTicks[L.xTicks.length - 1].value, 1000);
  const bad = lossCurveLayout([{ step: 1, loss: NaN }, { step: 2, loss: 0 }, { step: 3, loss: -1 }, { step: 4, loss: 1 }], 400, 200);
  assert.equal(bad.count, 1);
  const many = Array.from({ length: 20000 }, (_, i) => ({ step: i + 1, loss: 2 + Math.sin(i) }));
  const M = lossCurveLayout(many, 400, 200);
  assert.ok(pathPoints(M.path).length <= M.plot.w + 1, `${pathPoints(M.path).length} points`);
  // Averaging keeps values inside the data range.
  const [lo, hi] = M.domain.y;
  assert.ok(lo <= 1 && hi >= 3);
});

test('matrixLayout: one cell per weight, labels per token, vertical labels for words', () => {
  const m = { srcTokens: ['a', 'b', 'c'], tgtTokens: ['c', 'b', 'a', '</s>'], rows: 4, cols: 3,
    attention: Float32Array.from([0, 0.1, 0.9, 0.2, 0.7, 0.1, 0.95, 0.05, 0, 0.3, 0.3, 0.4]) };
  const L = matrixLayout(m, { cell: 20 });
  assert.equal(L.cells.length, 12);
  assert.equal(L.colLabels.length, 3);
  assert.equal(L.rowLabels.length, 4);
  assert.equal(L.vertical, false);
  const c = L.cells.find((q) => q.row === 2 && q.col === 0);
  assert.ok(Math.abs(c.value - 0.95) < 1e-6);
  assert.equal(c.x, L.grid.x);
  assert.equal(c.y, L.grid.y + 2 * 20);
  assert.equal(L.grid.w, 60);
  assert.equal(L.grid.h, 80);
  assert.ok(L.width >= L.grid.x + L.grid.w && L.height >= L.grid.y + L.grid.h);
  // Row labels end left of the grid; column labels sit over their column.
  L.rowLabels.forEach((r) => assert.ok(r.x < L.grid.x));
  L.colLabels.forEach((q, t) => assert.equal(q.x, L.grid.x + t * 20 + 10));
  // Values are clamped, NaN is 0.
  const odd = matrixLayout({ ...m, attention: [2, -1, NaN, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
  assert.deepEqual(odd.cells.slice(0, 3).map((q) => q.value), [1, 0, 0]);
  // Words: vertical column labels, and a taller label band for longer words; Hangul counts double.
  const w = matrixLayout({ srcTokens: ['Jane', 'went', 'to', 'the', 'store'], tgtTokens: ['제인이', '가게에', '갔다', '</s>'], rows: 4, cols: 5, attention: new Float32Array(20) });
  assert.equal(w.vertical, true);
  assert.ok(w.grid.y > 20);
  assert.equal(tokenWidth('제인이'), 6);
  assert.ok(w.grid.x >= 6 * 7.5);
  // Spaces are shown as a middle dot.
  assert.equal(matrixLayout({ srcTokens: ['3', ' ', 'M'], tgtTokens: [], rows: 0, cols: 3, attention: [] }).colLabels[1].text, '·');
  // Empty (before training): no cells, still a valid box.
  const e = matrixLayout({ srcTokens: [], tgtTokens: [], rows: 0, cols: 0, attention: [] });
  assert.equal(e.cells.length, 0);
  assert.ok(e.width > 0 && e.height > 0);
});

test('accuracyChartLayout: two series over fixed lengths, partial data, bounds', () => {
  const lengths = lengthGrid(60, 5);
  const att = lengths.map((L) => ({ length: L, accuracy: L < 50 ? 1 : 0.9 }));
  const van = lengths.slice(0, 5).map((L) => ({ length: L, accuracy: Math.max(0, 1 - L / 25) }));
  const C = accuracyChartLayout([{ key: 'attention', label: 'A', points: att }, { key: 'vanilla', label: 'V', points: van }], 500, 260, { lengths });
  assert.equal(C.series.length, 2);
  assert.equal(C.series[0].points.length, 12);
  assert.equal(C.series[1].points.length, 5);
  assert.equal(C.xTicks.length, 12);
  assert.equal(C.xTicks[0].x, C.plot.x);
  assert.equal(C.xTicks[11].x, C.plot.x + C.plot.w);
  assert.deepEqual(C.yTicks.map((t) => t.label), ['0%', '25%', '50%', '75%', '100%']);
  const top = C.plot.y, bottom = C.plot.y + C.plot.h;
  assert.equal(C.series[0].points[0].cy, top);                           // 100 %
  assert.equal(C.series[1].points[4].cy, bottom);                        // 0 % at length 25
  for (const sr of C.series) {
    assert.equal(pathPoints(sr.path).length, sr.points.length);
    for (const p of sr.points) assert.ok(p.cx >= C.plot.x && p.cx <= C.plot.x + C.plot.w && p.cy >= top && p.cy <= bottom);
  }
  // Unsorted input is sorted; NaN accuracy is dropped; an empty series has an empty path.
  const U = accuracyChartLayout([{ key: 'x', points: [{ length: 20, accuracy: 0.5 }, { length: 10, accuracy: NaN }, { length: 5, accuracy: 1 }] }, { key: 'y', points: [] }], 300, 200);
  assert.deepEqual(U.series[0].points.map((p) => p.length), [5, 20]);
  assert.equal(U.series[1].path, '');
  // No data at all still lays out axes.
  assert.equal(accuracyChartLayout([], 300, 200).series.length, 0);
});

test('study data: seeded, exact lengths, alphabet a..t, scoring', () => {
  const a = reverseSet([5, 10], 4, 42), b = reverseSet([5, 10], 4, 42), c = reverseSet([5, 10], 4, 43);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.equal(a[0].sources.length, 4);
  for (const bucket of a) for (const s of bucket.sources) {
    assert.equal(s.length, bucket.length);
    assert.match(s, /^[a-t]+$/);
  }
  assert.equal(ALPHABET.length, 20);
  const r = mulberry32(1);
  const xs = Array.from({ length: 1000 }, r);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(Math.abs(xs.reduce((s, x) => s + x, 0) / 1000 - 0.5) < 0.05);
  assert.deepEqual(lengthGrid(), [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]);
  assert.equal(reverseString('abc'), 'cba');
  assert.deepEqual(scoreReverse('abcd', 'dcba'), { exact: true, tokenAccuracy: 1 });
  assert.deepEqual(scoreReverse('abcd', 'dcbx'), { exact: false, tokenAccuracy: 0.75 });
  assert.deepEqual(scoreReverse('abcd', 'dcbaa'), { exact: false, tokenAccuracy: 1 });
  assert.deepEqual(scoreReverse('abcd', ''), { exact: false, tokenAccuracy: 0 });
});

test('task presets map to valid createTrainer options', () => {
  assert.deepEqual(Object.keys(TASKS), ['dates', 'en-ko', 'reverse', 'copy']);
  const o = trainerOptions({ task: 'reverse', style: 'bahdanau', score: 'additive', cell: 'lstm', hidden: 32, steps: 400, lr: 0.01 });
  assert.deepEqual(o.model, { style: 'bahdanau', score: 'additive', cell: 'lstm', hidden: 32, embedding: 32 });
  assert.equal(o.minLength, 1);
  assert.equal(o.maxLength, 12);
  assert.equal(o.warmup, 40);
  assert.equal(trainerOptions({ task: 'dates', style: 'luong', score: 'dot', cell: 'gru', hidden: 64, steps: 100, lr: 0.005 }).minLength, undefined);
  assert.throws(() => trainerOptions({ task: 'nope' }));
  const c = { task: 'dates', style: 'none', score: 'dot', cell: 'gru', hidden: 64 };
  assert.equal(modelLabel(c, 300), 'dates · vanilla · GRU 64 · step 300');
  assert.equal(modelFileName({ ...c, style: 'luong' }, 300), 'attnseq-dates-luong-dot-gru64-step300.safetensors');
});
