// A large alignment matrix as a scrolling window onto a canvas: the canvas is only as big as the
// window (it sticks to it while the content scrolls under it) and each frame draws only the cells
// and labels in view (geometry: web/views/viewport.js), so a 300 x 300 matrix costs what a 20 x 20
// one does, and its cells keep a readable size. The compare and beam small multiples use it as a
// picture (renderMatrixCanvas); the page's live alignment uses the window itself (matrixWindow):
// rows are added as the decoder steps, and it draws the hover highlights and the inspected row.
import { viridis, hex } from './colormap.js';
import { fmt } from './format.js';
import { h } from './dom.js';
import { matrixFrame, growFrame, visibleCells, cellAt } from './viewport.js';

// One observer for every window (here and in web/views/virtual-rows.js): it calls the element's
// draw function when the element first gets a size and when it resizes, and forgets removed ones.
const draws = new WeakMap();
let observer = null;
export function observeSize(el, draw) {
  draws.set(el, draw);
  observer ??= new ResizeObserver((entries) => {
    for (const e of entries) {
      if (!e.target.isConnected) observer.unobserve(e.target);
      else draws.get(e.target)?.();
    }
  });
  observer.observe(el);
}

// Windows near the viewport are drawn at once; the others when they come into view or when the
// page is idle, one per idle period (16 beam hypotheses below the fold never add up to a long task,
// and a full-page screenshot or a print still shows them).
const near = new WeakSet();
const views = new WeakMap();
let seer = null;
function observeView(el, draw) {
  seer ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.target.isConnected) seer.unobserve(e.target);
      else if (e.isIntersecting) {
        near.add(e.target);
        views.get(e.target)?.();
      } else near.delete(e.target);
    }
  }, { rootMargin: '200px' });
  views.set(el, draw);
  seer.observe(el);
}

const whenIdle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn) : setTimeout(fn, 50));   // (Safari has none)

// Viridis at 1024 levels as "#rrggbb": a cell's colour is a look-up (within 1/255 of viridis()).
const LEVELS = 1023;
const RAMP = Array.from({ length: LEVELS + 1 }, (_, i) => hex(viridis(i / LEVELS)));
const colour = (w) => RAMP[Number.isFinite(w) ? Math.round(Math.min(1, Math.max(0, w)) * LEVELS) : 0];

/**
 * A scrolling canvas window for an alignment. opts: { cell, font, vanilla, label, cls }.
 * Returns { el, set(r, show), grow(r, show), highlight(target), select(row), hit(clientX, clientY),
 * cellRect(row, col), reveal(row, col), frame() }:
 * - set(r, show) shows r = { srcTokens, tgtTokens, attention, rows, cols } and scrolls cell
 *   show = { row, col } into view when it next draws;
 * - grow(r, show) is set() for an r that has gained rows at its end since the last call (the same
 *   source): the frame grows by those rows instead of being worked out again;
 * - highlight({ row, col, cells: [{ row, col }] } | null) outlines a row, a column and linked cells;
 * - select(row) marks the inspected row's label;
 * - hit() tells what a client point is over: { row, col } (a cell), { row } (a row label),
 *   { col } (a column label) or null, and cellRect() gives a cell's client rectangle.
 * The element's dataset carries the frame (rows, cols, cell, left, top) for tests and tools.
 */
export function matrixWindow({ cell, font = 11, vanilla = false, label = 'attention alignment', cls = '' } = {}) {
  const canvas = h('canvas', { class: 'mview-canvas', role: 'img', 'aria-label': label });
  const size = h('div', { class: 'mview-size' }, canvas);
  const el = h('div', { class: `mview ${cls}`.trim(), tabindex: '0', role: 'group' }, size);
  let r = null, f = null, hl = null, selected = -1, queued = false, focus = null, idle = 0;

  // Scrolls so that cell (row, col) is in view (either may be undefined).
  const reveal = (row, col) => {
    const vw = el.clientWidth - f.left, vh = el.clientHeight - f.top;
    if (col !== undefined) {
      const x = col * f.cell;
      if (x < el.scrollLeft) el.scrollLeft = x;
      else if (x + f.cell > el.scrollLeft + vw) el.scrollLeft = x + f.cell - vw;
    }
    if (row !== undefined) {
      const y = row * f.cell;
      if (y < el.scrollTop) el.scrollTop = y;
      else if (y + f.cell > el.scrollTop + vh) el.scrollTop = y + f.cell - vh;
    }
  };
  const draw = (now = false) => {
    queued = false;
    if (!f || !el.isConnected) return;
    if (!near.has(el) && now !== true) {
      idle ||= whenIdle(() => { idle = 0; draw(true); });
      return;
    }
    if (focus && el.clientWidth > 0) {
      reveal(focus.row, focus.col);
      focus = null;
    }
    const w = Math.min(el.clientWidth, f.width), ht = Math.min(el.clientHeight, f.height);
    if (w <= 0 || ht <= 0) return;   // not laid out (hidden): the observer draws it once it shows
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = `${w}px`;      // CSSOM, not a style attribute: allowed by the page's CSP
    canvas.style.height = `${ht}px`;
    if (canvas.width !== Math.round(w * dpr)) canvas.width = Math.round(w * dpr);
    if (canvas.height !== Math.round(ht * dpr)) canvas.height = Math.round(ht * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(ctx, f, r, el.scrollLeft, el.scrollTop, w, ht, getComputedStyle(el), hl, selected);
    el.dataset.view = `${el.scrollLeft},${el.scrollTop}`;   // what was drawn (tests wait for it)
  };
  const schedule = () => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(draw);
    }
  };
  el.addEventListener('scroll', schedule, { passive: true });
  observeSize(el, draw);
  observeView(el, draw);

  // Shows `next` in `frame`; show: a cell { row, col } to scroll into view when it is next drawn.
  const present = (next, frame, show) => {
    if (show) focus = show;
    r = next;
    f = frame;
    size.style.width = `${f.width}px`;
    size.style.height = `${f.height}px`;
    Object.assign(el.dataset, { rows: f.rows, cols: f.cols, cell: f.cell, left: f.left, top: f.top });
    el.setAttribute('aria-label', `${label} (${f.rows} × ${f.cols}, scrolls)`);
    schedule();
  };

  const win = {
    el,
    set(next, show = null) {
      present(next, matrixFrame(next, { cell, font, vanilla }), show);
    },
    grow(next, show = null) {
      present(next, f && r && next.cols === r.cols && next.rows >= f.rows ? growFrame(f, next) : matrixFrame(next, { cell, font, vanilla }), show);
    },
    highlight(target) { hl = target; schedule(); },
    select(row) { if (row !== selected) { selected = row; schedule(); } },
    frame: () => f,
    hit(clientX, clientY) {
      if (!f) return null;
      const b = canvas.getBoundingClientRect();
      const x = clientX - b.left, y = clientY - b.top;
      if (x < 0 || y < 0 || x > b.width || y > b.height) return null;
      const at = cellAt(f, x, y, el.scrollLeft, el.scrollTop);
      if (at) return at;
      if (x < f.left && y >= f.top) {
        const row = Math.floor((y - f.top + el.scrollTop) / f.cell);
        return row < f.rows ? { row } : null;
      }
      if (y < f.top && x >= f.left) {
        const col = Math.floor((x - f.left + el.scrollLeft) / f.cell);
        return col < f.cols ? { col } : null;
      }
      return null;
    },
    cellRect(row, col) {
      const b = canvas.getBoundingClientRect();
      const x = col === undefined ? 0 : f.left + col * f.cell - el.scrollLeft;
      const y = row === undefined ? 0 : f.top + row * f.cell - el.scrollTop;
      const w = col === undefined ? f.left : f.cell, ht = row === undefined ? f.top : f.cell;
      return { left: b.left + x, top: b.top + y, right: b.left + x + w, bottom: b.top + y + ht, width: w, height: ht };
    },
    reveal(row, col) { if (f) reveal(row, col); },
  };
  return win;
}

/**
 * A finished matrix as a scrolling canvas window (the small multiples). r: { srcTokens, tgtTokens,
 * attention, rows, cols }; opts: { cell, font, vanilla, label, show } (show: the cell { row, col }
 * to open at). Hovering a cell puts its weight in the tooltip. Returns the window element.
 */
export function renderMatrixCanvas(r, opts = {}) {
  const win = matrixWindow(opts);
  win.set(r, opts.show ?? null);
  const canvas = win.el.querySelector('canvas');
  canvas.addEventListener('pointermove', (e) => {
    const at = win.hit(e.clientX, e.clientY);
    const f = win.frame();
    let tip = '';
    if (at?.col !== undefined && at.row !== undefined) {
      const rowName = f.rowNames[at.row], colName = f.colNames[at.col];
      if (opts.vanilla) tip = at.col === r.cols ? `${rowName}: decoded from h_T alone` : `${rowName} ← ${colName}: not visible to the decoder`;
      else tip = `${rowName} ← ${colName}: ${fmt(r.attention[at.row * r.cols + at.col], 4)}`;
    }
    if (canvas.title !== tip) canvas.title = tip;
  });
  return win.el;
}

/** Draws the cells, labels and highlights of frame f visible in a w x ht window scrolled to (sx, sy). */
function paint(ctx, f, r, sx, sy, w, ht, style, hl, selected) {
  const css = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  const bg = style.backgroundColor, ink = style.color, family = style.fontFamily;
  const blind = css('--blind', '#eceef1'), final = css('--final', '#e8590c'), hot = css('--hl', '#e8590c');
  const accent = css('--accent', '#2f5bd3'), accentInk = css('--accent-fg', '#ffffff');
  ctx.fillStyle = bg;
  ctx.fillRect(0, 0, w, ht);
  const { r0, r1, c0, c1 } = visibleCells(f, sx, sy, w, ht);
  const side = f.cell - 1;
  const X = (t) => f.left + t * f.cell - sx, Y = (k) => f.top + k * f.cell - sy;
  for (let k = r0; k < r1; k++) {
    for (let t = c0; t < c1; t++) {
      if (f.vanilla) ctx.fillStyle = t === r.cols ? final : blind;
      else ctx.fillStyle = colour(r.attention[k * r.cols + t]);
      ctx.fillRect(X(t), Y(k), side, side);
    }
  }
  if (hl) {
    ctx.lineWidth = 1;
    ctx.strokeStyle = ink;
    if (hl.row !== undefined) ctx.strokeRect(X(c0) - 0.5, Y(hl.row) - 0.5, (c1 - c0) * f.cell, f.cell);
    if (hl.col !== undefined) ctx.strokeRect(X(hl.col) - 0.5, Y(r0) - 0.5, f.cell, (r1 - r0) * f.cell);
    ctx.lineWidth = 2;
    ctx.strokeStyle = hot;
    for (const c of hl.cells ?? []) ctx.strokeRect(X(c.col) + 1, Y(c.row) + 1, side - 2, side - 2);
  }
  // The label bands are drawn last, over any cell scrolled under them.
  const linkedCols = new Set(), linkedRows = new Set();
  for (const c of hl?.cells ?? []) {
    linkedCols.add(c.col);
    linkedRows.add(c.row);
  }
  ctx.fillStyle = bg;
  ctx.fillRect(0, 0, w, f.top);
  ctx.fillRect(0, 0, f.left, ht);
  const plain = `${f.font}px ${family}`, bold = `700 ${f.font}px ${family}`;
  ctx.save();
  ctx.beginPath();
  ctx.rect(f.left, 0, w - f.left, f.top);
  ctx.clip();
  for (let t = c0; t < c1; t++) {
    const x = X(t) + f.cell / 2;
    const name = f.colNames[t];
    const on = hl?.col === t || linkedCols.has(t);
    ctx.save();
    ctx.translate(f.rotate ? x - f.font / 3 : x, f.top - 5);
    if (f.rotate) ctx.rotate(-Math.PI / 4);
    ctx.textAlign = f.rotate ? 'left' : 'center';
    ctx.font = on ? bold : plain;
    ctx.fillStyle = on ? hot : ink;
    if (name === 'h_T' && t === r.cols) {
      ctx.fillStyle = final;
      ctx.fillText('h', 0, 0);
      const hw = ctx.measureText('h').width;
      ctx.font = `${Math.round(f.font * 0.75)}px ${family}`;
      ctx.textAlign = 'left';
      ctx.fillText('T', (f.rotate ? hw : hw / 2) + 1, 3);
    } else ctx.fillText(name, 0, 0, 10 * f.font);
    ctx.restore();
  }
  ctx.restore();
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, f.top, f.left, ht - f.top);
  ctx.clip();
  ctx.textAlign = 'right';
  for (let k = r0; k < r1; k++) {
    const on = hl?.row === k || linkedRows.has(k);
    if (k === selected) {
      ctx.fillStyle = accent;
      ctx.fillRect(1, Y(k), f.left - 3, side);
    }
    ctx.font = on || k === selected ? bold : plain;
    ctx.fillStyle = k === selected ? accentInk : on ? hot : ink;
    ctx.fillText(f.rowNames[k], f.left - 5, Y(k) + f.cell / 2 + f.font / 3, f.left - 8);
  }
  ctx.restore();
}
