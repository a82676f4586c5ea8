// The links view of the watched decode: source tokens on top, output tokens below, a line per weight
// worth drawing. A long alignment (over LINKS_FIT tokens a side) has a fixed pitch, set by the source
// labels so that it never changes during a decode, and each new row's links are appended to the
// drawing; a short one is spread over its box and redrawn (it is small). Hovering highlights as in
// the matrix. It shows what the matrix shows: tokens, or a subword model's words.
// Interface: renderLinksView(k), clearLinks().
import { showToken } from '../views/alignment.js';
import { linksLayout, linksRow, linksPitch, LINKS_FIT } from '../views/links.js';
import { renderLinks, appendLinksRow } from '../views/render.js';
import { state } from './state.js';
import { $ } from './page.js';
import { isVanilla } from './session.js';
import { highlight, grid } from './matrix.js';

let shown = null;   // what the box shows: { sess, svg, lay, rows }

/** Draws the session's links after row k was added (k undefined: a new session). */
export function renderLinksView(k) {
  const box = $('links'), sess = state.sess;
  if (!sess || isVanilla(sess)) return box.replaceChildren();  // (hidden for a vanilla model: no links to draw)
  const a = grid();   // (a subword model's words redraw: a word's row changes as its pieces arrive)
  if (!a.words && shown?.sess === sess && shown.lay.pitch && k === shown.rows && k + 1 === a.rows && box.firstChild === shown.svg) {
    // (linksRow reads only row k's label: the others are not shown again)
    appendLinksRow(shown.svg, linksRow({ ...a, tgtTokens: { [k]: showToken(a.tgtTokens[k]) } }, k, shown.lay));
    shown.rows = a.rows;
    return;
  }
  const src = a.srcTokens.map(showToken), tgt = a.tgtTokens.map(showToken);
  const wide = Math.max(a.rows, a.cols) > LINKS_FIT;
  const lay = linksLayout({ ...a, srcTokens: src, tgtTokens: tgt },
    wide ? { pitch: linksPitch(src), height: 130 } : { width: Math.max(360, 40 * Math.max(a.rows, a.cols)), height: 130 });
  const svg = renderLinks(lay);
  shown = { sess, svg, lay, rows: a.rows };
  svg.addEventListener('pointerover', (e) => {
    const t = e.target.closest('[data-row], [data-col]');
    if (!t) return highlight(null);
    if (t.tagName === 'line') highlight({ row: Number(t.dataset.row), col: Number(t.dataset.col) });
    else if (t.dataset.row !== undefined) highlight({ row: Number(t.dataset.row) });
    else highlight({ col: Number(t.dataset.col) });
  });
  svg.addEventListener('pointerleave', () => highlight(null));
  box.replaceChildren(svg);
}

export function clearLinks() {
  $('links').replaceChildren();
  shown = null;
}
