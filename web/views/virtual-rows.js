// A long table body drawn as a window: only the rows in view (and a few either side) are in the DOM,
// and two spacer rows keep the height of the whole list, so scrolling works as usual. Rows must be
// of equal height; it is measured on the first row drawn. The step inspector uses it for long
// sources, where a row per source token (300 of them) would be rebuilt at every decoder step.
import { h } from './dom.js';
import { visibleRows } from './viewport.js';
import { observeSize } from './matrix-canvas.js';

/**
 * A <tbody> for `n` rows made by makeRow(i), inside `scroller` (the element that scrolls it). It
 * opens with row `focus` in the middle of the view. colspan: the table's column count.
 */
let measured = 0;   // a real row's height (px), measured once per page

export function virtualBody(scroller, n, makeRow, { focus = 0, colspan = 1, rowHeight = 32 } = {}) {
  const spacer = () => h('tr', { class: 'spacer', 'aria-hidden': 'true' }, h('td', { colspan }));
  const before = spacer(), after = spacer();
  const tbody = h('tbody', { dataset: { rows: n } });
  const made = new Map();   // i -> its row, made once for this body
  let rowH = measured || rowHeight, shown = null, queued = false, placed = false;

  const draw = (sy, height) => {
    const { i0, i1 } = visibleRows(n, rowH, sy, height, 2);
    if (shown && shown.i0 === i0 && shown.i1 === i1) return;
    const rows = [];
    for (let i = i0; i < i1; i++) {
      if (!made.has(i)) made.set(i, makeRow(i));
      rows.push(made.get(i));
    }
    before.firstChild.style.height = `${i0 * rowH}px`;   // CSSOM, allowed by the page's CSP
    after.firstChild.style.height = `${(n - i1) * rowH}px`;
    tbody.replaceChildren(before, ...rows, after);
    shown = { i0, i1 };
  };
  const centre = (height) => Math.max(0, (focus + 0.5) * rowH - height / 2);
  // Before it is on the page: the rows around `focus` for a view of 10 rows.
  draw(centre(10 * rowH), 10 * rowH);

  // Called by the resize observer (after layout, so reading sizes is cheap) and on scroll.
  const redraw = () => {
    queued = false;
    if (!tbody.isConnected || scroller.clientHeight === 0) return;
    if (!placed) {
      // First time in view: use a real row's height, then scroll `focus` to the middle.
      placed = true;
      measured ||= tbody.querySelector('tr:not(.spacer)')?.getBoundingClientRect().height ?? 0;
      if (measured > 0 && Math.abs(measured - rowH) > 0.5) {
        rowH = measured;
        shown = null;
        draw(centre(scroller.clientHeight), scroller.clientHeight);
      }
      scroller.scrollTop = centre(scroller.clientHeight);
    }
    draw(scroller.scrollTop, scroller.clientHeight);
  };
  scroller.addEventListener('scroll', () => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(redraw);
    }
  }, { passive: true });
  observeSize(scroller, redraw);
  return tbody;
}
