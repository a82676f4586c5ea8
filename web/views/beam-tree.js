// The beam search unfolding (the package's translate(..., { trace: true }).beamTrace): a column per
// decoder step, the step's hypotheses in it best first, a line from each to the hypothesis it extended.
// Up to a chosen step, so that a reader can step through it. A layout (pure: positions, classes, labels)
// and its SVG rendering. Node i of step k is "k:i".
import { fmt } from './format.js';
import { svgEl } from './render.js';

const COL = 104, ROW = 24, BOX_W = 84, BOX_H = 18, PAD = 6;

/** How many step columns a box `width` px wide holds (at least two). */
export const columnsThatFit = (width) => Math.max(2, Math.floor((width - BOX_W - 2 * PAD) / COL) + 1);

/** The nodes on the path that ends at node i of step k: a Set of "k:i". */
export function pathKeys(trace, k, i) {
  const keys = new Set();
  for (let j = k; j >= 0 && i >= 0; j--) {
    keys.add(`${j}:${i}`);
    i = trace[j][i].parent;
  }
  return keys;
}

/** The node that ends `tokens` (a hypothesis's ids), or null: [k, i]. */
export function endOf(trace, tokens, logProb) {
  const k = tokens.length - 1;
  if (!trace[k]) return null;
  for (let i = 0; i < trace[k].length; i++) {
    const n = trace[k][i];
    if (!n.ended || n.logProb !== logProb) continue;
    let j = k, at = i, same = true;
    for (; j >= 0 && same; j--) { same = trace[j][at].token === tokens[j]; at = trace[j][at].parent; }
    if (same) return [k, i];
  }
  return null;
}

/**
 * The layout of steps [first, upto] (at most `window` columns ending at `upto`). best: the Set of keys
 * on the best answer's path; eos: the end token's id; textOf(token) -> what a node shows. Returns { width, height, nodes,
 * edges, first }: a node { key, k, i, x, y, text, title, cls }, an edge { x1, y1, x2, y2, cls } (from a
 * parent left of the window, x1 is the window's left edge).
 */
export function beamTreeLayout(trace, upto, { best = new Set(), textOf = String, window = 6, eos = 2 } = {}) {
  const last = Math.min(upto, trace.length - 1);
  const first = Math.max(0, last - window + 1);
  const extended = (k, i) => k + 1 <= last && trace[k + 1].some((n) => n.parent === i);
  const nodes = [], edges = [];
  let rows = 0;
  for (let k = first; k <= last; k++) {
    rows = Math.max(rows, trace[k].length);
    trace[k].forEach((n, i) => {
      const key = `${k}:${i}`, x = PAD + (k - first) * COL, y = PAD + i * ROW;
      // live: the last step shown; kept: extended at the next; dropped: not extended, fell out of the beam
      const state = n.ended ? 'ended' : k === last ? 'live' : extended(k, i) ? 'kept' : 'dropped';
      const cls = ['node', state, best.has(key) ? 'best' : '', n.ended && n.token === eos ? 'eos' : ''].filter(Boolean).join(' ');
      nodes.push({
        key, k, i, x, y, text: textOf(n.token), cls,
        title: `step ${k + 1}, #${i + 1}: ${textOf(n.token)} · log p ${fmt(n.logProb, 3)} · score ${fmt(n.score, 3)}` +
          (n.ended ? ' · ended here' : state === 'dropped' ? ' · fell out of the beam' : ''),
      });
      if (n.parent >= 0) {
        const x1 = k === first ? PAD - 2 : PAD + (k - 1 - first) * COL + BOX_W;
        const y1 = k === first ? y + BOX_H / 2 : PAD + n.parent * ROW + BOX_H / 2;
        edges.push({ x1, y1, x2: x, y2: y + BOX_H / 2, cls: best.has(key) && best.has(`${k - 1}:${n.parent}`) ? 'edge best' : 'edge' });
      }
    });
  }
  return { width: PAD * 2 + (last - first) * COL + BOX_W, height: PAD * 2 + (rows - 1) * ROW + BOX_H, nodes, edges, first, last };
}

/** The layout as an <svg> (classes style it: .node.best, .node.dropped, .edge.best, ...). */
export function renderBeamTree(layout, label) {
  const svg = svgEl('svg', {
    viewBox: `0 0 ${layout.width} ${layout.height}`, width: layout.width, class: 'beam-tree', role: 'img', 'aria-label': label,
  });
  for (const e of layout.edges) {
    const mid = (e.x1 + e.x2) / 2;
    svg.append(svgEl('path', { d: `M${e.x1},${e.y1} C${mid},${e.y1} ${mid},${e.y2} ${e.x2},${e.y2}`, class: e.cls }));
  }
  for (const n of layout.nodes) {
    svg.append(svgEl('g', { class: n.cls, 'data-key': n.key, transform: `translate(${n.x},${n.y})` },
      svgEl('title', {}, n.title),
      svgEl('rect', { width: BOX_W, height: BOX_H, rx: 4 }),
      svgEl('text', { x: BOX_W / 2, y: BOX_H / 2 + 4, 'text-anchor': 'middle' }, n.text.length > 11 ? `${n.text.slice(0, 10)}…` : n.text)));
  }
  return svg;
}
