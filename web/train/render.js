// Thin SVG renderers for the train panel's views: they draw what layout.js computed and put the
// numbers on data- attributes (what tests and other scripts read). No layout decisions here.
import { s } from './dom.js';
import { lossCurveLayout, matrixLayout } from './layout.js';
import { viridis, VIRIDIS_ANCHORS } from './colors.js';

const cache = new WeakMap();  // svg -> the elements of its last full render, and what they showed

function size(svg, w, h) {
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('width', w);
  svg.setAttribute('height', h);
}

/**
 * Loss curve: points [{step, loss}] laid out for a w x h box (opts as lossCurveLayout). The frame,
 * grid and tick labels are rebuilt only when they change; otherwise only the path and the dot move,
 * which keeps each redraw during training cheap (no SVG text layout).
 */
// A chart's frame, grid lines and tick labels from a layout with plot, xTicks and yTicks.
export function chartAxes(L) {
  const p = L.plot;
  const kids = [s('rect', { class: 'ts-frame', x: p.x, y: p.y, width: p.w, height: p.h })];
  for (const t of L.yTicks) kids.push(
    s('line', { class: 'ts-gridline', x1: p.x, x2: p.x + p.w, y1: t.y, y2: t.y }),
    s('text', { class: 'ts-tick', x: p.x - 4, y: t.y, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, t.label));
  for (const t of L.xTicks) kids.push(
    s('line', { class: 'ts-gridline', x1: t.x, x2: t.x, y1: p.y, y2: p.y + p.h }),
    s('text', { class: 'ts-tick', x: t.x, y: p.y + p.h + 14, 'text-anchor': 'middle' }, t.label));
  return kids;
}

export function renderLoss(svg, points, w, h, opts = {}) {
  const L = lossCurveLayout(points, w, h, opts);
  const p = L.plot;
  const axesKey = JSON.stringify([w, h, L.xTicks, L.yTicks, !!L.count]);
  let c = cache.get(svg);
  if (c?.axesKey !== axesKey) {
    size(svg, w, h);
    const kids = chartAxes(L);
    kids.push(s('text', { class: 'ts-axis', x: p.x + p.w, y: h - 2, 'text-anchor': 'end' }, 'step'));
    if (!L.count) kids.push(s('text', { class: 'ts-empty', x: p.x + p.w / 2, y: p.y + p.h / 2, 'text-anchor': 'middle' }, 'the loss appears here as the model trains'));
    const path = s('path', { class: 'ts-loss-line', d: '' });
    const dot = s('circle', { class: 'ts-loss-dot', cx: -10, cy: -10, r: 3 });
    svg.replaceChildren(...kids, path, dot);
    c = { axesKey, path, dot };
    cache.set(svg, c);
  }
  c.path.setAttribute('d', L.path || 'M0,0');
  c.dot.setAttribute('visibility', L.last ? 'visible' : 'hidden');
  if (L.last) { c.dot.setAttribute('cx', L.last.cx); c.dot.setAttribute('cy', L.last.cy); }
  const ok = points.filter((q) => Number.isFinite(q.loss));
  svg.dataset.points = String(ok.length);
  if (ok.length) {
    svg.dataset.firstLoss = String(ok[0].loss);
    svg.dataset.lastLoss = String(ok[ok.length - 1].loss);
    svg.dataset.lastStep = String(ok[ok.length - 1].step);
  } else {
    for (const k of ['firstLoss', 'lastLoss', 'lastStep']) delete svg.dataset[k];
  }
  return L;
}

/**
 * Alignment matrix of one translation {srcTokens, tgtTokens, attention, rows, cols}. While the shape
 * and tokens stay the same (a model in training usually emits the same output for a while) only the
 * cells' fills change, so redrawing every few steps costs little on the main thread.
 */
export function renderMatrix(svg, m, opts = {}) {
  const L = matrixLayout(m, opts);
  const key = JSON.stringify([m.rows, m.cols, m.srcTokens, m.tgtTokens, L.cell]);
  if (cache.get(svg)?.key === key) {
    const rects = cache.get(svg).rects;
    L.cells.forEach((c, i) => rects[i].setAttribute('fill', viridis(c.value)));
  } else {
    size(svg, L.width, L.height);
    const rects = L.cells.map((c) => s('rect', { class: 'ts-cell', x: c.x, y: c.y, width: c.w, height: c.h, fill: viridis(c.value), 'data-row': c.row, 'data-col': c.col }));
    const kids = [...rects];
    for (const t of L.colLabels) {
      kids.push(t.rotate
        ? s('text', { class: 'ts-token', transform: `translate(${t.x},${t.y}) rotate(${t.rotate})`, 'text-anchor': 'start', 'dominant-baseline': 'middle' }, t.text)
        : s('text', { class: 'ts-token', x: t.x, y: t.y, 'text-anchor': 'middle' }, t.text));
    }
    for (const t of L.rowLabels) kids.push(s('text', { class: 'ts-token', x: t.x, y: t.y, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, t.text));
    kids.push(s('rect', { class: 'ts-matrix-frame', x: L.grid.x, y: L.grid.y, width: L.grid.w, height: L.grid.h }));
    svg.replaceChildren(...kids);
    cache.set(svg, { key, rects });
  }
  cache.get(svg).layout = L;
  svg.dataset.rows = String(m.rows);
  svg.dataset.cols = String(m.cols);
  svg.dataset.weights = Array.from(m.attention, (v) => Number(v).toFixed(4)).join(',');
  return L;
}
/** The cell under a pointer event on a matrix drawn by renderMatrix: { row, col, value, src, tgt } or null. */
export function cellAt(svg, event) {
  const r = event.target?.closest?.('rect.ts-cell');
  const L = cache.get(svg)?.layout;
  if (!r || !L) return null;
  const row = Number(r.dataset.row), col = Number(r.dataset.col);
  const c = L.cells[row * L.colLabels.length + col];
  return c ? { row, col, value: c.value, src: L.colLabels[col]?.text, tgt: L.rowLabels[row]?.text } : null;
}

/** A horizontal viridis colour bar from 0 to 1 (gradient stops at the table's anchors). */
export function colorBar(gradientId, w = 160, h = 10) {
  // The anchors are evenly spaced in t (wasm/colormap.js), so the gradient between stops is the map itself.
  const stops = VIRIDIS_ANCHORS.map((_, k, A) => {
    const t = k / (A.length - 1);
    return s('stop', { offset: `${(t * 100).toFixed(2)}%`, 'stop-color': viridis(t) });
  });
  return s('svg', { class: 'ts-colorbar', viewBox: `0 0 ${w} ${h + 14}`, width: w, height: h + 14, 'aria-hidden': 'true' },
    s('defs', {}, s('linearGradient', { id: gradientId, x1: 0, x2: 1, y1: 0, y2: 0 }, stops)),
    s('rect', { x: 0, y: 0, width: w, height: h, fill: `url(#${gradientId})` }),
    s('text', { class: 'ts-tick', x: 0, y: h + 12, 'text-anchor': 'start' }, '0'),
    s('text', { class: 'ts-tick', x: w / 2, y: h + 12, 'text-anchor': 'middle' }, 'attention weight'),
    s('text', { class: 'ts-tick', x: w, y: h + 12, 'text-anchor': 'end' }, '1'));
}
