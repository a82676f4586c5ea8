// Pure layout for the train panel's views (Seq2Seq-Vis style: numbers in, geometry out, no DOM):
// the loss curve (log-scaled loss against step) and the alignment matrix of the probe input.
// The renderers in panel.js only turn this geometry into SVG elements.

/** Rounds for SVG attributes: enough precision, short strings. */
const r2 = (v) => Math.round(v * 100) / 100;

/** "Nice" linear ticks (1, 2, 5 x 10^k) covering [lo, hi], about `count` of them. */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** Log-scale ticks (1, 2, 5 per decade, thinned when there are many decades) inside [lo, hi]. */
export function logTicks(lo, hi) {
  const out = [];
  const d0 = Math.floor(Math.log10(lo)), d1 = Math.ceil(Math.log10(hi));
  const mults = d1 - d0 > 3 ? [1] : d1 - d0 > 1 ? [1, 3] : [1, 2, 5];
  for (let d = d0; d <= d1; d++)
    for (const m of mults) {
      const v = Number((m * 10 ** d).toPrecision(6));
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
    }
  return out;
}

/** A compact label: 0.05, 1.5k, 12k. */
export function fmt(v) {
  if (Math.abs(v) >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

export const LOSS_MARGIN = { left: 44, right: 10, top: 10, bottom: 26 };

/**
 * Loss curve geometry. points: [{ step, loss }] in step order (non-finite or non-positive losses are
 * skipped). opts.xMax: the planned number of steps, so the axis stays put while the curve grows
 * (default: the last point's step); opts.margin. Returns { width, height, plot: {x, y, w, h},
 * path (SVG "d"), xTicks, yTicks, last, count, domain }. y is logarithmic (a loss falls over orders
 * of magnitude) and snapped to thirds of a decade, so it changes rarely; more points than pixel
 * columns are averaged per column so the path stays short however long the run.
 */
export function lossCurveLayout(points, w, h, opts = {}) {
  const margin = opts.margin ?? LOSS_MARGIN;
  const plot = { x: margin.left, y: margin.top, w: Math.max(1, w - margin.left - margin.right), h: Math.max(1, h - margin.top - margin.bottom) };
  const pts = (points ?? []).filter((p) => Number.isFinite(p.step) && Number.isFinite(p.loss) && p.loss > 0);
  const base = { width: w, height: h, plot, path: '', xTicks: [], yTicks: [], last: null, count: pts.length };
  if (pts.length === 0) return base;
  const s0 = Math.min(0, pts[0].step), s1 = Math.max(pts[pts.length - 1].step, opts.xMax ?? 0, s0 + 1);
  let lmin = Infinity, lmax = -Infinity;
  for (const p of pts) { lmin = Math.min(lmin, p.loss); lmax = Math.max(lmax, p.loss); }
  // Pad to whole 1-2-5 steps so the curve never touches the frame, and keep at least a 10x range.
  let lo = 10 ** (Math.floor(Math.log10(lmin) * 3) / 3), hi = 10 ** (Math.ceil(Math.log10(lmax) * 3) / 3);
  if (hi / lo < 10) lo = hi / 10;
  const X = (s) => plot.x + ((s - s0) / (s1 - s0)) * plot.w;
  const Y = (l) => plot.y + plot.h - ((Math.log10(l) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plot.h;
  // Average per pixel column.
  const cols = [];
  for (const p of pts) {
    const c = Math.round(X(p.step));
    const top = cols[cols.length - 1];
    if (top && top.c === c) { top.sum += p.loss; top.n++; top.step = p.step; } else cols.push({ c, sum: p.loss, n: 1, step: p.step });
  }
  const path = cols.map((q, i) => `${i ? 'L' : 'M'}${r2(X(q.step))},${r2(Y(q.sum / q.n))}`).join('');
  const lastP = pts[pts.length - 1];
  return {
    ...base,
    path,
    xTicks: niceTicks(s0, s1, Math.max(2, Math.floor(plot.w / 70))).map((v) => ({ value: v, x: r2(X(v)), label: fmt(v) })),
    yTicks: logTicks(lo, hi).map((v) => ({ value: v, y: r2(Y(v)), label: fmt(v) })),
    last: { step: lastP.step, loss: lastP.loss, cx: r2(X(lastP.step)), cy: r2(Y(lastP.loss)) },
    domain: { x: [s0, s1], y: [lo, hi] },
  };
}

/** Display width of a token in em-ish units: wide (Hangul, CJK) characters count double. */
export function tokenWidth(s) {
  let n = 0;
  for (const ch of String(s)) {
    const c = ch.codePointAt(0);
    n += (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xff60) ? 2 : 1;
  }
  return n;
}

/** Visible form of a token: spaces as a middle dot, special tokens as they are. */
export function showToken(t) {
  return t === ' ' ? '·' : String(t);
}

/**
 * Alignment matrix geometry. m: { srcTokens, tgtTokens, attention (rows x cols, row-major), rows, cols }.
 * Columns are source tokens, rows are output tokens (one row per decoder step). Column labels are
 * turned vertical when any is longer than 2 characters. opts.cell: cell size in px (default 22),
 * opts.charWidth: px per label character (default 7.5). Returns { width, height, cells, colLabels,
 * rowLabels, vertical, grid: {x, y, w, h} }; each cell carries row, col, value (clamped to [0, 1]).
 */
export function matrixLayout(m, opts = {}) {
  const cell = opts.cell ?? 22, cw = opts.charWidth ?? 7.5, pad = 4;
  const rows = m?.rows ?? 0, cols = m?.cols ?? 0;
  const src = (m?.srcTokens ?? []).map(showToken), tgt = (m?.tgtTokens ?? []).map(showToken);
  const vertical = src.some((t) => tokenWidth(t) > 2);
  const colLabelH = vertical ? Math.ceil(Math.max(1, ...src.map(tokenWidth)) * cw) + pad * 2 : cell;
  const rowLabelW = Math.ceil(Math.max(1, ...tgt.map(tokenWidth)) * cw) + pad * 2;
  const grid = { x: rowLabelW, y: colLabelH, w: cols * cell, h: rows * cell };
  const cells = [];
  for (let k = 0; k < rows; k++)
    for (let t = 0; t < cols; t++) {
      const v = Number(m.attention[k * cols + t]);
      cells.push({ row: k, col: t, x: grid.x + t * cell, y: grid.y + k * cell, w: cell, h: cell, value: Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0 });
    }
  const colLabels = src.slice(0, cols).map((text, t) => (vertical
    ? { text, col: t, x: grid.x + t * cell + cell / 2, y: colLabelH - pad, rotate: -90 }
    : { text, col: t, x: grid.x + t * cell + cell / 2, y: colLabelH - pad, rotate: 0 }));
  const rowLabels = tgt.slice(0, rows).map((text, k) => ({ text, row: k, x: rowLabelW - pad, y: grid.y + k * cell + cell / 2 }));
  return { width: grid.x + grid.w + 1, height: grid.y + grid.h + 1, cells, colLabels, rowLabels, vertical, grid, cell };
}
