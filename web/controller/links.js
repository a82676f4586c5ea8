// The links view of the watched decode: source tokens on top, output tokens below, a line per weight
// worth drawing. Labels are drawn at 12 px and never overlap, at any width (a phone's 390 px
// included). An alignment whose labels fit the box side by side is spread over the box at its own
// width and redrawn (it is small). A longer one (over LINKS_FIT tokens a side, or too wide for the
// box) has a fixed pitch, the widest label's, and scrolls sideways; each new row's links are appended
// to it, unless the row's label is wider than the pitch, which redraws it at a wider one. Hovering
// highlights as in the matrix. It shows what the matrix shows: tokens, or a subword model's words.
// Interface: renderLinksView(k), clearLinks().
import { showToken } from '../views/alignment.js';
import { linksLayout, linksRow, linksPitch, LINKS_FIT } from '../views/links.js';
import { renderLinks, appendLinksRow } from '../views/render.js';
import { state } from './state.js';
import { $ } from './page.js';
import { isVanilla } from './session.js';
import { highlight, grid } from './matrix.js';

const FONT = 12;   // px: the labels' size, kept at any width
let shown = null;   // what the box shows: { sess, svg, lay, rows }

/** Draws the session's links after row k was added (k undefined: a new session). */
export function renderLinksView(k) {
  const box = $('links'), sess = state.sess;
  if (!sess || isVanilla(sess)) return box.replaceChildren();  // (hidden for a vanilla model: no links to draw)
  const a = grid();   // (a subword model's words redraw: a word's row changes as its pieces arrive)
  if (!a.words && shown?.sess === sess && shown.lay.pitch && k === shown.rows && k + 1 === a.rows && box.firstChild === shown.svg &&
      linksPitch([showToken(a.tgtTokens[k])], FONT) <= shown.lay.pitch) {
    // (linksRow reads only row k's label: the others are not shown again)
    appendLinksRow(shown.svg, linksRow({ ...a, tgtTokens: { [k]: showToken(a.tgtTokens[k]) } }, k, shown.lay));
    shown.rows = a.rows;
    return;
  }
  const src = a.srcTokens.map(showToken), tgt = a.tgtTokens.slice(0, a.rows).map(showToken);
  const n = Math.max(a.rows, a.cols), pitch = linksPitch([...src, ...tgt], FONT);
  const fit = box.clientWidth || 360;   // (0 while the box is not laid out)
  const wide = n > LINKS_FIT || n * pitch > fit;
  const lay = linksLayout({ ...a, srcTokens: src, tgtTokens: tgt },
    wide ? { pitch, height: 130, font: FONT } : { width: fit, height: 130, font: FONT });
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
