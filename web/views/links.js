// The alignment as links (Seq2Seq-Vis style): source tokens along the top, output tokens along the
// bottom, one line per (output, source) pair whose weight is worth drawing; line opacity and width
// grow with the weight. Pure geometry in a width x height box; the page draws it as SVG.
import { viridis, hex } from './colormap.js';

/**
 * r: { srcTokens, tgtTokens, attention, rows, cols }; opts: { width, height, min (default 0.02), font }.
 * Returns { width, height, src: [{ x, y, text, col }], tgt: [{ x, y, text, row }],
 *           links: [{ x1, y1, x2, y2, weight, row, col, opacity, strokeWidth, stroke }] }, heaviest last.
 */
export function linksLayout(r, opts = {}) {
  const font = opts.font ?? 12;
  const n = Math.max(r.rows, r.cols, 1);
  const width = opts.width ?? Math.max(320, n * 36);
  const height = opts.height ?? 120;
  const yTop = font + 6, yBottom = height - font - 4;
  const ySrc = yTop + 6, yTgt = yBottom - font - 2;
  const xs = (count, i) => ((i + 0.5) * width) / Math.max(1, count);
  const src = r.srcTokens.slice(0, r.cols).map((text, col) => ({ x: xs(r.cols, col), y: yTop, text, col }));
  const tgt = r.tgtTokens.slice(0, r.rows).map((text, row) => ({ x: xs(r.rows, row), y: yBottom, text, row }));
  const min = opts.min ?? 0.02;
  const links = [];
  for (let k = 0; k < r.rows; k++) {
    for (let t = 0; t < r.cols; t++) {
      const w = r.attention[k * r.cols + t];
      if (!(w >= min)) continue;
      links.push({
        x1: xs(r.cols, t), y1: ySrc, x2: xs(r.rows, k), y2: yTgt, weight: w, row: k, col: t,
        opacity: Math.min(1, 0.15 + 0.85 * w), strokeWidth: 0.75 + 3.25 * w, stroke: hex(viridis(0.25 + 0.6 * w)),
      });
    }
  }
  links.sort((a, b) => a.weight - b.weight);
  return { width, height, src, tgt, links, font };
}
