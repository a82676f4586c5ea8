// Geometry of a large alignment matrix seen through a scrolling window: token labels frozen on the
// top and left, cells never smaller than MIN_CELL px (so 300 columns scroll instead of being squashed
// into stripes), and the rows and columns the window shows, so that a renderer draws only those
// (web/views/matrix-canvas.js). Also the windowing of long lists (the inspector's rows). Pure; no DOM.
import { showToken, textWidth } from './alignment.js';

/** Smallest cell side (px) of a canvas matrix: its colour reads and a one-character label fits. */
export const MIN_CELL = 14;

/** Cells (rows x cols) above which a matrix is drawn on a canvas window instead of as SVG rects. */
export const LARGE_CELLS = 1500;

/** Source tokens beyond which the page draws its live alignment and the inspector's rows as windows. */
export const LONG_SOURCE = 40;

/** Whether a rows x cols matrix is large enough for the canvas window. */
export const isLargeMatrix = (rows, cols) => rows * cols > LARGE_CELLS;

/**
 * The frame of a matrix: { cell, font, left, top, rows, cols, width, height, colNames, rowNames,
 * rotate, vanilla }. width x height is the whole scrollable content; left and top are the frozen
 * label bands. r: { srcTokens, tgtTokens, rows, cols }; vanilla adds the h_T column.
 * Labels longer than 10 em are clipped by the renderer, so one odd token cannot widen the bands.
 */
export function matrixFrame(r, { cell = MIN_CELL, font = 11, vanilla = false } = {}) {
  const side = Math.max(MIN_CELL, cell);
  const colNames = r.srcTokens.slice(0, r.cols).map(showToken);
  const rowNames = r.tgtTokens.slice(0, r.rows).map(showToken);
  const cap = 10 * font;
  const longestCol = Math.min(cap, Math.max(0, ...colNames.map((s) => textWidth(s, font))));
  if (vanilla) colNames.push('h_T');   // (drawn as h with a subscript T: as narrow as one character)
  const rotate = longestCol > side - 2;
  const top = rotate ? Math.ceil(longestCol * Math.SQRT1_2 + font) + 6 : font + 8;
  const longestRow = Math.max(font, ...rowNames.map((s) => textWidth(s, font)));
  const left = Math.ceil(Math.min(cap, longestRow)) + 10;
  const cols = r.cols + (vanilla ? 1 : 0);
  return {
    cell: side, font, left, top, rows: r.rows, cols, width: left + cols * side, height: top + r.rows * side,
    colNames, rowNames, rotate, vanilla, longestRow,
  };
}

/**
 * The frame of r after rows were added at its end (the source unchanged): the same as
 * matrixFrame(r, the options of f), but only the new rows' labels are measured. The row label
 * array of f is extended in place, so f is not to be used afterwards.
 */
export function growFrame(f, r) {
  const cap = 10 * f.font;
  let longestRow = f.longestRow;
  for (let k = f.rows; k < r.rows; k++) {
    const name = showToken(r.tgtTokens[k]);
    f.rowNames.push(name);
    longestRow = Math.max(longestRow, textWidth(name, f.font));
  }
  const left = Math.ceil(Math.min(cap, longestRow)) + 10;
  return { ...f, left, rows: r.rows, width: left + f.cols * f.cell, height: f.top + r.rows * f.cell, longestRow };
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/**
 * The cells a w x h window scrolled to (sx, sy) shows, with the label bands frozen:
 * { r0, r1, c0, c1 } (ends exclusive). Cell (k, t) is drawn at x = left + t * cell - sx,
 * y = top + k * cell - sy in window coordinates.
 */
export function visibleCells(f, sx, sy, w, h) {
  return {
    c0: clamp(Math.floor(sx / f.cell), 0, f.cols), c1: clamp(Math.ceil((sx + w - f.left) / f.cell), 0, f.cols),
    r0: clamp(Math.floor(sy / f.cell), 0, f.rows), r1: clamp(Math.ceil((sy + h - f.top) / f.cell), 0, f.rows),
  };
}

/** The cell under window point (x, y) of a window scrolled to (sx, sy), or null (label bands, outside). */
export function cellAt(f, x, y, sx, sy) {
  if (x < f.left || y < f.top) return null;
  const col = Math.floor((x - f.left + sx) / f.cell), row = Math.floor((y - f.top + sy) / f.cell);
  return row >= 0 && row < f.rows && col >= 0 && col < f.cols ? { row, col } : null;
}

/**
 * Items [i0, i1) of a list of n rows of rowHeight px that a window of h px scrolled to sy shows,
 * plus `extra` rows either side (so a small scroll does not uncover blank space).
 */
export function visibleRows(n, rowHeight, sy, h, extra = 4) {
  const i0 = clamp(Math.floor(sy / rowHeight) - extra, 0, n);
  const i1 = clamp(Math.ceil((sy + h) / rowHeight) + extra, i0, n);
  return { i0, i1 };
}
