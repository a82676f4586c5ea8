// Vectors and scalars as geometry in unit boxes: a colour strip per vector (one cell per number,
// diverging RdBu for signed values), horizontal bars for scores, weights and probabilities. The
// renderer puts each layout in an SVG with viewBox "0 0 width height" that stretches to its box.
import { viridis, diverging, hex, maxAbs } from './colormap.js';

/**
 * A vector as a strip: [{ x, y, w, h, fill, value, i }], cells side by side across `width`.
 * opts: { width (default n), height (default 1), max (symmetric colour range; default max |v|) }.
 */
export function stripLayout(values, opts = {}) {
  const n = values.length;
  const width = opts.width ?? n, height = opts.height ?? 1;
  const m = opts.max ?? maxAbs(values);
  const w = width / Math.max(1, n);
  return Array.from(values, (value, i) => ({ x: i * w, y: 0, w, h: height, fill: hex(diverging(value, m)), value, i }));
}

/**
 * Horizontal bars, one per value, each in its own width x 1 box.
 * signed: zero is in the middle, bars grow left (negative, blue) or right (positive, red) to +-max;
 * unsigned: bars grow from the left edge to value / max, coloured with viridis(value / max).
 * Returns [{ x, w, zero, fill, value, i }].
 */
export function barsLayout(values, opts = {}) {
  const width = opts.width ?? 100;
  const signed = !!opts.signed;
  const m = opts.max ?? (signed ? maxAbs(values) : Math.max(0, ...Array.from(values, (v) => (Number.isFinite(v) ? v : 0))));
  const scale = m > 0 ? m : 1;
  return Array.from(values, (value, i) => {
    const v = Number.isFinite(value) ? value : 0;
    if (signed) {
      const half = width / 2, len = Math.min(1, Math.abs(v) / scale) * half;
      return { x: v < 0 ? half - len : half, w: len, zero: half, fill: hex(diverging(v, scale)), value, i };
    }
    const len = Math.min(1, Math.max(0, v) / scale) * width;
    return { x: 0, w: len, zero: 0, fill: hex(viridis(Math.max(0, v) / scale)), value, i };
  });
}

/** The rows of a rows x cols matrix (row-major) as arrays, e.g. the encoder states h_1..h_n. */
export function matrixRows(data, rows, cols) {
  const out = [];
  for (let i = 0; i < rows; i++) out.push(data.subarray ? data.subarray(i * cols, (i + 1) * cols) : data.slice(i * cols, (i + 1) * cols));
  return out;
}
