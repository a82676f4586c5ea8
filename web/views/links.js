// The alignment as links (Seq2Seq-Vis style): source tokens along the top, output tokens along the
// bottom, one line per (output, source) pair whose weight is worth drawing; line opacity and width
// grow with the weight. Pure geometry in a width x height box; the page draws it as SVG.
// A short alignment is spread over the box; a long one (more than LINKS_FIT tokens on a side) gets a
// fixed, readable pitch per token and scrolls, and its positions do not move as output rows arrive,
// so the page appends each new row's links (linksRow) instead of redrawing them all.
import { viridis, hex } from './colormap.js';
import { textWidth } from './alignment.js';

/** Tokens per side that are spread over the box; beyond this the layout uses a fixed pitch. */
export const LINKS_FIT = 20;

/** The pitch (px per token) of a long layout: the widest label plus a gap, from 16 to 120 px. */
export function linksPitch(labels, font = 12) {
  const widest = Math.max(0, ...labels.map((s) => textWidth(s, font)));
  return Math.max(16, Math.min(120, Math.ceil(widest + 8)));
}

/**
 * r: { srcTokens, tgtTokens, attention, rows, cols }; opts: { width, height, min (default 0.02),
 * font, pitch }. With a pitch, token i of either side is at (i + 0.5) * pitch and the width is
 * max(rows, cols) * pitch; without, each side is spread evenly over the width.
 * Returns { width, height, src: [{ x, y, text, col }], tgt: [{ x, y, text, row }],
 *           links: [{ x1, y1, x2, y2, weight, row, col, opacity, strokeWidth, stroke }], font, pitch,
 *           ySrc, yTgt, min }, links heaviest last.
 */
export function linksLayout(r, opts = {}) {
  const font = opts.font ?? 12;
  const pitch = opts.pitch ?? null;
  const n = Math.max(r.rows, r.cols, 1);
  const width = pitch ? Math.max(n * pitch, opts.width ?? 0) : opts.width ?? Math.max(320, n * 36);
  const height = opts.height ?? 120;
  const yTop = font + 6, yBottom = height - font - 4;
  const ySrc = yTop + 6, yTgt = yBottom - font - 2;
  const xs = pitch ? (_count, i) => (i + 0.5) * pitch : (count, i) => ((i + 0.5) * width) / Math.max(1, count);
  const lay = { width, height, src: [], tgt: [], links: [], font, pitch, ySrc, yTgt, yTop, yBottom, min: opts.min ?? 0.02, xs };
  lay.src = r.srcTokens.slice(0, r.cols).map((text, col) => ({ x: xs(r.cols, col), y: yTop, text, col }));
  lay.tgt = r.tgtTokens.slice(0, r.rows).map((text, row) => ({ x: xs(r.rows, row), y: yBottom, text, row }));
  for (let k = 0; k < r.rows; k++) lay.links.push(...rowLinksOf(r, k, lay, r.rows));
  lay.links.sort((a, b) => a.weight - b.weight);
  return lay;
}

function rowLinksOf(r, k, lay, rows) {
  const out = [];
  for (let t = 0; t < r.cols; t++) {
    const w = r.attention[k * r.cols + t];
    if (!(w >= lay.min)) continue;
    out.push({
      x1: lay.xs(r.cols, t), y1: lay.ySrc, x2: lay.xs(rows, k), y2: lay.yTgt, weight: w, row: k, col: t,
      opacity: Math.min(1, 0.15 + 0.85 * w), strokeWidth: 0.75 + 3.25 * w, stroke: hex(viridis(0.25 + 0.6 * w)),
    });
  }
  return out.sort((a, b) => a.weight - b.weight);
}

/**
 * Row k of r laid out in a fixed-pitch layout made earlier (with fewer rows): its target label and
 * links, heaviest last, and the width the layout needs now. Earlier rows' positions do not change.
 */
export function linksRow(r, k, lay) {
  if (!lay.pitch) throw new Error('linksRow() needs a layout with a fixed pitch');
  return {
    tgt: { x: lay.xs(0, k), y: lay.yBottom, text: r.tgtTokens[k], row: k },
    links: rowLinksOf(r, k, lay, 0),
    width: Math.max(lay.width, (k + 1) * lay.pitch),
  };
}
