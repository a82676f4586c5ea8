// The live alignment of the watched decode: an HTML table (a header row of source tokens, then one
// row appended per decoder step) or, for a long source, a canvas window that grows by a row per step;
// hover highlights (only the elements whose highlight changes are touched), tooltips, and dragging a
// cell sideways to move that step's attention. A subword model's matrix shows words (a row per target
// word, a column per source word: session.js gridOf) or, by the toggle, its pieces; rows and columns
// here are the grid's, and a press or a drag reaches the steps and pieces they stand for.
// Interface: setupMatrix({ onSelect, onMove }), buildMatrix(), redrawMatrix(), appendMatrixRow(r, k),
// clearMatrix(), markSelectedRow(), highlight(target), grid().
import { rowLinks, colLinks, hangulSyllables } from '../views/alignment.js';
import { argmax } from '../views/inspect.js';
import { fmt } from '../views/format.js';
import { h } from '../views/dom.js';
import { tableHead, tableRow } from '../views/table-view.js';
import { matrixWindow } from '../views/matrix-canvas.js';
import { LONG_SOURCE } from '../views/viewport.js';
import { state } from './state.js';
import { $, showTip, hideTip, markUnknown } from './page.js';
import { gridOf, hasWords, isVanilla, inspectedStep } from './session.js';

// What a press on a row does (inspect that step) and what a cell dragged onto another column does
// (re-decode with that step looking only there): set by the page's wiring.
const on = { select: () => {}, move: () => {} };

/** What the matrix shows of the watched decode (pieces, or a subword model's words). */
export const grid = () => gridOf(state.sess, state.byWords);
// A row pressed: its step (a word's last piece); a cell dropped on column col: the row's first step
// looks only at that column's pieces.
const selectRow = (row) => { const [f, n] = grid().rowSteps[row]; on.select(f + n - 1); };
const moveRow = (row, col) => { const g = grid(); on.move(g.rowSteps[row][0], ...g.colSpans[col], g.srcLabels[col]); };
let shownRows = 0;       // the table rows drawn

// A long source (over LONG_SOURCE tokens) is drawn in a canvas window instead of the table: a table
// of 300 columns costs the browser seconds of layout and paint per row, the window only its view.
let liveWin = null;
let marks = [];          // the window's row labels: each step's token with the table's ⇢ / ✎ marks
let selectedRow = null;  // the table row marked as the inspected one
let freshRow = null;     // the table row that arrived last (it animates in)

const table = () => $('alignment');
const bodyRow = (row) => table().tBodies[0]?.rows[row];
const headCell = (col) => table().tHead?.querySelector(`th[data-col="${col}"]`);   // (the columns' own row)
const cellAt = (row, col) => bodyRow(row)?.cells[col + 1];          // (after the row's header)

/** Draws the empty matrix of a new session: its header, or a window for a long source. */
export function buildMatrix() {
  const sess = state.sess;
  tapped = null;
  clearMatrix();
  const g = grid();
  if (sess.src.length > LONG_SOURCE) {
    const t = table();
    liveWin = matrixWindow({ cell: 18, font: 12, vanilla: isVanilla(sess), cls: 'live', label: t.getAttribute('aria-label') });
    setupWindow(liveWin);
    t.after(liveWin.el);
    liveWin.set(liveAlignment());
    $('scale').hidden = true;   // (the window draws 0 → 1 only)
    return;
  }
  $('scale').hidden = false;
  table().replaceChildren(tableHead(g.srcTokens, isVanilla(sess), g.words ? 'word' : 'token', g.words ? null : hangulSyllables(g.srcTokens)), h('tbody'));
  table().classList.toggle('compact', g.cols > 10);  // long (character) sources: narrower cells
  const heads = () => table().querySelectorAll('thead th[data-col]');
  markUnknown(heads(), (th) => Number(th.dataset.col), g.unknown);
  markUnknown(heads(), (th) => Number(th.dataset.col), g.bytes, false, 'bytes');
}

/** The words / pieces toggle: shown for a subword model, pressed as state.byWords says. */
export function showUnits(model) {
  $('units').hidden = !hasWords(model);
  $('watch-rows').textContent = hasWords(model) && state.byWords ? 'one row per output word' : 'one row per decoder step';
  $('units-words').setAttribute('aria-pressed', String(state.byWords));
  $('units-pieces').setAttribute('aria-pressed', String(!state.byWords));
}

/** The ensemble picker: shown for an ensemble, its options the mean and each member (by file). */
export function showMembers(sess) {
  const n = sess?.members ?? 1;
  $('members').hidden = n < 2;
  if (n < 2) return;
  if (state.member !== null && state.member >= n) state.member = null;
  const files = sess.entry.files ?? [];
  $('member').replaceChildren(h('option', { value: '', text: `their mean (${n} models)` }),
    ...Array.from({ length: n }, (_, m) => h('option', { value: String(m), text: `model ${m + 1}${files[m] ? ` (${files[m]})` : ''}` })));
  $('member').value = state.member === null ? '' : String(state.member);
}

/** Draws the matrix again from the session's steps (the units changed). */
export function redrawMatrix() {
  if (!state.sess) return;
  buildMatrix();
  if (liveWin) {
    marks = rowMarks();
    liveWin.set(liveAlignment());
  } else {
    drawRows(0);
  }
  markSelectedRow();
}

// The window's row labels: each row's text with the table's ⇢ / ✎ marks.
function rowMarks() {
  const g = grid();
  return g.tgtTokens.map((t, i) => `${t}${g.flags[i].forced ? '⇢' : ''}${g.flags[i].overridden ? '✎' : ''}`);
}

// The table's rows from `from` on, as the grid has them now (a word's row changes while its pieces arrive).
function drawRows(from) {
  const g = grid(), sess = state.sess, body = table().tBodies[0];
  freshRow?.classList.remove('fresh');
  for (let row = from; row < g.rows; row++) {
    const r = { text: g.tgtTokens[row], attention: g.attention.subarray(row * g.cols, (row + 1) * g.cols), ...g.flags[row] };
    const scale = state.scale === 'scores' && g.words ? 'linear' : state.scale;   // (a word's row has no scores of its own)
    if (scale === 'scores') r.scores = inspectedStep(sess, row, state.member).scores;
    const tr = tableRow(r, row, g.srcLabels, isVanilla(sess), selectRow, g.words ? 'word' : 'step', scale);
    if (body.rows[row]) {
      if (body.rows[row] === selectedRow) selectedRow = null;
      body.rows[row].replaceWith(tr);
    } else {
      body.append(tr);
    }
    freshRow = tr;
  }
  while (body.rows.length > g.rows) body.rows[body.rows.length - 1].remove();
  if (from < g.rows) forget();
  shownRows = g.rows;
}

/** Removes the matrix (no session, or a new one is about to be drawn). */
export function clearMatrix() {
  table().replaceChildren();
  liveWin?.el.remove();
  liveWin = null;
  marks = [];
  shownRows = 0;
  selectedRow = freshRow = null;
  forget();
}

// The window's rows: the alignment so far, with the table's marks for forced and moved rows.
function liveAlignment() {
  const g = grid();
  return { srcTokens: g.srcTokens, tgtTokens: marks, attention: g.attention, rows: g.rows, cols: g.cols };
}

/** Adds step k's row (StepResult r) to the matrix. */
export function appendMatrixRow(r, k) {
  const sess = state.sess;
  const g = grid();
  if (liveWin) {
    if (g.words) {
      marks = rowMarks();
      liveWin.set(liveAlignment());
    } else {
      marks.push(`${r.text}${r.forced ? '⇢' : ''}${r.overridden ? '✎' : ''}`);
      // Following the latest step, the window keeps the new row and the column it looks at in view.
      liveWin.grow(liveAlignment(), state.selected === null ? { row: k, col: isVanilla(sess) ? sess.src.length : argmax(r.attention) } : null);
    }
    return markSelectedRow();
  }
  // (A word's row is drawn again as its pieces arrive; the end token adds no row.)
  drawRows(g.words ? Math.max(0, Math.min(shownRows - 1, g.rows)) : shownRows);
  markSelectedRow();
}

/** Marks the inspected step's row (the latest while following). */
export function markSelectedRow() {
  const sess = state.sess;
  const k = sess ? (state.selected ?? sess.steps.length - 1) : -1;
  const row = k >= 0 ? (grid().rowOf[k] ?? -1) : -1;
  if (liveWin) return liveWin.select(row);
  const tr = (row >= 0 && bodyRow(row)) || null;
  if (tr === selectedRow) return;
  selectedRow?.classList.remove('selected');
  tr?.classList.add('selected');
  selectedRow = tr;
}

// Hover: a cell shows its weight and highlights its row and column; a row (output token) or a source
// token highlights its links in the matrix and in the links view. Only the elements of the previous
// highlight are cleared, and the same target over the same rows changes nothing.
let lit = [];        // [element, class] pairs the current highlight added
let litKey = null;   // what they show: the target, the session and its row count
const forget = () => { litKey = null; };
const light = (el, cls) => {
  if (!el) return;
  el.classList.add(cls);
  lit.push([el, cls]);
};

export function highlight(target) {
  const sess = state.sess;
  const key = target && sess ? [target.row, target.col, sess.steps.length, state.byWords] : null;
  if (litKey && key && litKey.sess === sess && litKey.key.every((v, i) => v === key[i])) return;
  litKey = key && { sess, key };
  if (liveWin) highlightWindow(target);
  for (const [el, cls] of lit) el.classList.remove(cls);
  lit = [];
  const links = $('links');
  links.querySelector('svg')?.classList.toggle('focus', !!target);
  if (!target || !sess) return;
  const a = grid();
  const { row, col } = target;
  const inTable = !liveWin;   // (the window draws its own highlights)
  if (row !== undefined) {
    if (inTable) {
      light(bodyRow(row), 'hl');
      if (!isVanilla(sess)) {
        for (const l of rowLinks(a.attention, a.rows, a.cols, row, 0.1)) {
          light(headCell(l.col), 'linked');
          light(cellAt(row, l.col), 'linked');
        }
      }
    }
    for (const el of links.querySelectorAll(`[data-row="${row}"]`)) light(el, 'on');
  }
  if (col !== undefined) {
    if (inTable) {
      light(headCell(col), 'hl');
      for (let k = 0; k < a.rows; k++) light(cellAt(k, col), 'hl');
      if (row === undefined && !isVanilla(sess)) {
        for (const l of colLinks(a.attention, a.rows, a.cols, col, 0.1)) {
          light(bodyRow(l.row)?.cells[0], 'linked');
          light(cellAt(l.row, col), 'linked');
        }
      }
    }
    for (const el of links.querySelectorAll(`[data-col="${col}"]`)) if (row === undefined || el.dataset.row === undefined || el.dataset.row === String(row)) light(el, 'on');
  }
}

function rowSummary(row) {
  const sess = state.sess, a = grid();
  const text = a.tgtTokens[row];
  if (isVanilla(sess)) return `“${text}”: no attention; the decoder only had h_T`;
  const l = rowLinks(a.attention, a.rows, a.cols, row, 0.1).map((x) => `${a.srcLabels[x.col]} ${fmt(x.weight, 3)}`);
  const pieces = a.words && a.rowSteps[row][1] > 1 ? ` (the mean of its ${a.rowSteps[row][1]} pieces)` : '';
  return `“${text}” looks at${pieces}: ${l.join(', ')}`;
}

function colSummary(col) {
  const sess = state.sess, a = grid();
  if (isVanilla(sess)) return `“${a.srcLabels[col]}”: the vanilla decoder never looks at it`;
  const l = colLinks(a.attention, a.rows, a.cols, col, 0.1).map((x) => `${a.tgtTokens[x.row]} ${fmt(x.weight, 3)}`);
  const pieces = a.words && a.colSpans[col][1] > 1 ? ` (its ${a.colSpans[col][1]} pieces together)` : '';
  return l.length ? `“${a.srcLabels[col]}”${pieces} is looked at by: ${l.join(', ')}` : `“${a.srcLabels[col]}”: no output ${a.words ? 'word' : 'token'} puts 0.1 of its weight here yet`;
}

function hoverAt(el) {
  const sess = state.sess;
  if (!sess || !el) return;
  const td = el.closest('td'), th = el.closest('th');
  if (td && td.dataset.col !== undefined) {
    const row = Number(td.dataset.row), col = Number(td.dataset.col);
    highlight({ row, col });
    const w = Number(td.dataset.weight), g = grid();
    showTip(td, isVanilla(sess) ? `${g.tgtTokens[row]} ← ${g.srcLabels[col]}: not visible (no attention)` : `${g.tgtTokens[row]} ← ${g.srcLabels[col]}: w = ${fmt(w, 4)}`);
  } else if (th && th.closest('tbody')) {
    const row = Number(th.parentElement.dataset.row);
    highlight({ row });
    showTip(th, rowSummary(row));
  } else if (th && th.dataset.col !== undefined) {
    const col = Number(th.dataset.col);
    highlight({ col });
    showTip(th, colSummary(col));
  } else {
    highlight(null);
    hideTip();
  }
}

let drag = null;    // the table cell a mouse press started on: { row, col }
let tapped = null;  // a touch or pen's first tap on a cell: { row, col, td } (a second tap in its row moves the attention)

/**
 * Listens to the table: hover and focus for tips and links, a row's button to inspect it, a cell
 * dragged sideways (mouse) to move that step's attention, or by touch a cell tapped and then another
 * of its row (a drag along a row would fight the page's scrolling). onSelect(k), onMove(k, col).
 */
export function setupMatrix({ onSelect, onMove }) {
  on.select = onSelect;
  on.move = onMove;
  const t = table();
  t.addEventListener('pointerover', (e) => {
    if (drag) {
      const td = e.target.closest('td');
      for (const el of t.querySelectorAll('.drop')) el.classList.remove('drop');
      if (td && Number(td.dataset.row) === drag.row && td.dataset.col !== undefined) td.classList.add('drop');
      return;
    }
    hoverAt(e.target);
  });
  t.addEventListener('pointerleave', () => { if (!drag) { highlight(null); hideTip(); } });
  t.addEventListener('focusin', (e) => hoverAt(e.target));
  t.addEventListener('focusout', () => { highlight(null); hideTip(); });
  t.addEventListener('pointerdown', (e) => {
    const td = e.target.closest('td');
    if (!td || e.button !== 0 || td.dataset.col === undefined || !state.sess) return;
    drag = { row: Number(td.dataset.row), col: Number(td.dataset.col) };
    if (e.pointerType === 'mouse' && !isVanilla(state.sess)) {
      e.preventDefault();
      t.classList.add('dragging');
      showTip(td, `Drag along row ${drag.row + 1} and drop on a source token: the step will look only there`);
    }
  });
  document.addEventListener('pointerup', (e) => {
    if (!drag) return;
    const from = drag;
    drag = null;
    t.classList.remove('dragging');
    for (const el of t.querySelectorAll('.drop')) el.classList.remove('drop');
    hideTip();
    const td = e.target instanceof Element ? e.target.closest('#alignment td') : null;
    if (!td || td.dataset.col === undefined) return;
    const row = Number(td.dataset.row), col = Number(td.dataset.col);
    if (e.pointerType !== 'mouse') {
      // Touch or pen: a tap picks a cell (and inspects its step), a second tap in its row moves there.
      const first = tapped;
      first?.td.classList.remove('picked');
      tapped = null;
      if (first && first.row === row && first.col !== col && !isVanilla(state.sess)) return moveRow(row, col);
      if (row !== from.row) return;
      selectRow(row);
      if (!isVanilla(state.sess)) {
        tapped = { row, col, td };
        td.classList.add('picked');
        showTip(td, `Tap another cell of row ${row + 1}: the step will look only at its source token`);
      }
      return;
    }
    if (row === from.row && col !== from.col) moveRow(row, col);
    else if (row === from.row) selectRow(row);
  });
}

// The canvas window's highlights: the hovered row or column and the cells it links (as in the table).
function highlightWindow(target) {
  const sess = state.sess;
  if (!target || !sess || isVanilla(sess)) return liveWin.highlight(target && sess ? target : null);
  const a = grid();
  const { row, col } = target;
  const cells = row !== undefined
    ? rowLinks(a.attention, a.rows, a.cols, row, 0.1).map((l) => ({ row, col: l.col }))
    : colLinks(a.attention, a.rows, a.cols, col, 0.1).map((l) => ({ row: l.row, col }));
  liveWin.highlight({ row, col, cells });
}

// The window's pointer and keyboard use, as the table's: hover for tips and links, click a row to
// inspect it, drag a cell sideways (mouse) to move that step's attention; arrows move a cursor.
function setupWindow(win) {
  const rectOf = (at) => ({ getBoundingClientRect: () => win.cellRect(at.row, at.col) });
  const show = (at) => {
    const sess = state.sess;
    if (!sess || !at) {
      highlight(null);
      return hideTip();
    }
    const { row, col } = at, g = grid();
    if (row !== undefined && col !== undefined) {
      highlight({ row, col });
      const text = g.tgtTokens[row], name = g.srcLabels[col];
      showTip(rectOf(at), col >= g.cols ? `${text}: decoded from h_T alone`
        : isVanilla(sess) ? `${text} ← ${name}: not visible (no attention)` : `${text} ← ${name}: w = ${fmt(g.attention[row * g.cols + col], 4)}`);
    } else if (row !== undefined) {
      highlight({ row });
      showTip(rectOf(at), rowSummary(row));
    } else if (col < g.cols) {
      highlight({ col });
      showTip(rectOf(at), colSummary(col));
    } else {
      highlight(null);
      hideTip();
    }
  };
  let down = null, cursor = null;
  win.el.addEventListener('pointermove', (e) => {
    const at = win.hit(e.clientX, e.clientY);
    if (down && at?.row === down.row && at.col !== undefined && e.pointerType === 'mouse' && !isVanilla(state.sess)) {
      win.highlight({ row: down.row, col: at.col, cells: [{ row: down.row, col: at.col }] });
      forget();   // (the window no longer shows what highlight() drew last)
      return showTip(rectOf(at), `Drag along row ${down.row + 1} and drop on a source token: the step will look only there`);
    }
    show(at);
  });
  win.el.addEventListener('pointerleave', () => { if (!down) show(null); });
  win.el.addEventListener('pointerdown', (e) => {
    const at = win.hit(e.clientX, e.clientY);
    if (e.button !== 0 || at?.row === undefined) return;
    down = at;
    win.el.setPointerCapture(e.pointerId);   // (the release comes here even off the window)
    if (e.pointerType === 'mouse' && at.col !== undefined) e.preventDefault();
  });
  win.el.addEventListener('pointercancel', () => { down = null; });   // (a touch that became a scroll)
  win.el.addEventListener('pointerup', (e) => {
    if (!down) return;
    const from = down;
    down = null;
    const at = win.hit(e.clientX, e.clientY);
    if (at?.row !== from.row) return show(null);
    if (at.col !== undefined && from.col !== undefined && at.col !== from.col && at.col < grid().cols && e.pointerType === 'mouse') moveRow(at.row, at.col);
    else selectRow(at.row);
  });
  win.el.addEventListener('keydown', (e) => {
    const f = win.frame(), sess = state.sess;
    if (!sess || !f || f.rows === 0) return;
    cursor ??= { row: Math.max(0, state.selected === null ? f.rows - 1 : grid().rowOf[state.selected]), col: 0 };
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (moves[e.key]) {
      e.preventDefault();
      cursor = { row: Math.min(f.rows - 1, Math.max(0, cursor.row + moves[e.key][0])), col: Math.min(grid().cols - 1, Math.max(0, cursor.col + moves[e.key][1])) };
      win.reveal(cursor.row, cursor.col);
      requestAnimationFrame(() => show(cursor));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      selectRow(cursor.row);
    }
  });
  win.el.addEventListener('focus', () => {
    const f = win.frame();
    if (state.sess && f?.rows && win.el.matches(':focus-visible')) show((cursor ??= { row: Math.max(0, state.selected === null ? f.rows - 1 : grid().rowOf[state.selected]), col: 0 }));
  });
  win.el.addEventListener('blur', () => show(null));
}
