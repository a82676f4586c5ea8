// Thin renderers: turn the pure layouts of alignment.js, links.js and vectors.js into SVG elements
// (through the DOM, never innerHTML, so the page's strict CSP holds) or onto a canvas (PNG export).
// Colours come from the layouts; page colours (text, lines) come from CSS classes.
import { fmt } from './format.js';

const NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes; children may be nodes or strings. */
export function svgEl(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/** An <svg> that stretches its width x height viewBox to the CSS box (strips and bars). */
export function unitSVG(width, height, cls, label) {
  return svgEl('svg', {
    viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', class: cls,
    role: label ? 'img' : undefined, 'aria-label': label, 'aria-hidden': label ? undefined : 'true', focusable: 'false',
  });
}

/** A colour strip (stripLayout) as an SVG image; each cell carries data-value. */
export function renderStrip(rects, { cls = 'strip', label, kind } = {}) {
  const svg = unitSVG(rects.length || 1, 1, cls, label);
  if (kind) svg.dataset.kind = kind;
  for (const r of rects) {
    svg.append(svgEl('rect', { x: r.x, y: 0, width: r.w + 0.02, height: 1, fill: r.fill, 'data-value': r.value, 'data-i': r.i }));
  }
  return svg;
}

/**
 * A colour strip as a canvas of one pixel per cell, stretched to its box: one element instead of
 * one per number, for the many strips of a long source. The values stay in data-values (JSON).
 */
export function renderStripCanvas(rects, { cls = 'strip', label, kind } = {}) {
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, rects.length);
  canvas.height = 1;
  canvas.className = cls;
  if (label) canvas.setAttribute('aria-label', label);
  canvas.setAttribute('role', label ? 'img' : 'presentation');
  if (kind) canvas.dataset.kind = kind;
  const img = new ImageData(canvas.width, 1);
  for (const r of rects) {
    const at = 4 * r.i, v = parseInt(r.fill.slice(1), 16);   // fill is "#rrggbb"
    img.data[at] = v >> 16;
    img.data[at + 1] = (v >> 8) & 255;
    img.data[at + 2] = v & 255;
    img.data[at + 3] = 255;
  }
  canvas.getContext('2d').putImageData(img, 0, 0);
  return canvas;
}

/** One bar (barsLayout entry) in a 100 x 1 box, with a zero line for signed bars. */
export function renderBar(bar, { signed = false, cls = 'bar' } = {}) {
  const svg = unitSVG(100, 1, cls);
  svg.append(svgEl('rect', { x: 0, y: 0, width: 100, height: 1, class: 'bar-bg' }));
  svg.append(svgEl('rect', { x: bar.x, y: 0.1, width: Math.max(bar.w, 0.4), height: 0.8, fill: bar.fill }));
  if (signed) svg.append(svgEl('rect', { x: bar.zero - 0.3, y: 0, width: 0.6, height: 1, class: 'bar-zero' }));
  return svg;
}

/**
 * A matrixFigure as an inline <svg> that scales down to its container. Cells carry data-weight,
 * data-row, data-col and a <title> tooltip; the current text colour draws the labels.
 */
export function renderFigure(fig, { label, cls = 'matrix' } = {}) {
  const svg = svgEl('svg', {
    viewBox: `0 0 ${fig.width} ${fig.height}`, width: fig.width, height: fig.height, class: cls,
    role: 'img', 'aria-label': label ?? 'attention alignment', 'font-size': fig.font,
  });
  for (const t of fig.title) svg.append(svgEl('text', { x: t.x, y: t.y, class: 'fig-title' }, t.text));
  for (const c of fig.cells) {
    const rowName = fig.rowLabels[c.row]?.text ?? '', colName = fig.colLabels[c.col]?.text ?? '';
    const tip = c.kind === 'final' ? `${rowName}: decoded from h_T alone` : c.kind === 'blind' ? `${rowName} ← ${colName}: not visible to the decoder` : `${rowName} ← ${colName}: ${fmt(c.weight, 4)}`;
    svg.append(svgEl('rect', {
      x: c.x, y: c.y, width: c.w, height: c.h, fill: c.fill ?? undefined, class: `cell ${c.kind ?? 'attn'}`,
      'data-weight': c.weight, 'data-row': c.row, 'data-col': c.col,
    }, svgEl('title', {}, tip)));
  }
  for (const l of fig.colLabels) {
    const final = l.text === 'h_T';  // the vanilla figure's extra column, drawn as h with subscript T
    svg.append(svgEl('text', {
      x: l.x, y: l.y, 'text-anchor': l.anchor, class: final ? 'label final' : 'label',
      transform: l.rotate ? `rotate(${l.rotate} ${l.x} ${l.y})` : undefined,
    }, ...(final ? ['h', svgEl('tspan', { dy: 3, 'font-size': '75%' }, 'T')] : [l.text])));
  }
  for (const l of fig.rowLabels) svg.append(svgEl('text', { x: l.x, y: l.y, 'text-anchor': 'end', class: 'label' }, l.text));
  return svg;
}

/** Draws a matrixFigure on a 2D canvas context (scaled by `scale`), white background, for PNG export. */
export function drawFigure(ctx, fig, { scale = 2, fontFamily = 'system-ui, "Noto Sans KR", NanumGothic, sans-serif' } = {}) {
  ctx.save();
  ctx.scale(scale, scale);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, fig.width, fig.height);
  ctx.font = `${fig.font}px ${fontFamily}`;
  ctx.fillStyle = '#1b1b1b';
  ctx.font = `bold ${fig.font}px ${fontFamily}`;
  for (const t of fig.title) ctx.fillText(t.text, t.x, t.y);
  ctx.font = `${fig.font}px ${fontFamily}`;
  for (const c of fig.cells) {
    ctx.fillStyle = c.kind === 'final' ? '#e8590c' : c.kind === 'blind' ? '#eeeeee' : c.fill;
    ctx.fillRect(c.x, c.y, c.w, c.h);
  }
  ctx.fillStyle = '#1b1b1b';
  for (const l of fig.colLabels) {
    ctx.save();
    ctx.translate(l.x, l.y);
    if (l.rotate) ctx.rotate((l.rotate * Math.PI) / 180);
    ctx.textAlign = l.anchor === 'middle' ? 'center' : l.anchor === 'end' ? 'right' : 'left';
    if (l.text === 'h_T') {
      ctx.textAlign = 'left';
      ctx.fillText('h', 0, 0);
      ctx.font = `${Math.round(fig.font * 0.75)}px ${fontFamily}`;
      ctx.fillText('T', ctx.measureText('h').width + 1, 3);
      ctx.font = `${fig.font}px ${fontFamily}`;
    } else ctx.fillText(l.text, 0, 0);
    ctx.restore();
  }
  ctx.textAlign = 'right';
  for (const l of fig.rowLabels) ctx.fillText(l.text, l.x, l.y);
  if (fig.legend) {
    for (const s of fig.legend.swatches) {
      ctx.fillStyle = s.fill;
      ctx.fillRect(s.x, s.y, s.w, s.h);
    }
    ctx.fillStyle = '#555555';
    for (const l of fig.legend.labels) {
      ctx.textAlign = l.anchor === 'end' ? 'right' : 'left';
      ctx.fillText(l.text, l.x, l.y);
    }
  }
  ctx.restore();
}

/** A linksLayout as an <svg>: token labels and lines; lines carry data-row / data-col for highlighting. */
export function renderLinks(lay, { label } = {}) {
  // A fixed-pitch layout keeps its size in px (its box scrolls); a spread one scales to its box.
  const svg = svgEl('svg', {
    viewBox: `0 0 ${lay.width} ${lay.height}`, class: lay.pitch ? 'links wide' : 'links', role: 'img', 'font-size': lay.font,
    width: lay.pitch ? lay.width : undefined, height: lay.pitch ? lay.height : undefined,
    'aria-label': label ?? 'attention links between source and output tokens',
  });
  const g = svgEl('g', { class: 'link-lines' });
  for (const l of lay.links) {
    g.append(svgEl('line', {
      x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2, stroke: l.stroke, 'stroke-width': l.strokeWidth,
      'stroke-opacity': l.opacity, 'stroke-linecap': 'round', 'data-row': l.row, 'data-col': l.col, 'data-weight': l.weight,
    }));
  }
  svg.append(g);
  for (const s of lay.src) svg.append(svgEl('text', { x: s.x, y: s.y, 'text-anchor': 'middle', class: 'label src', 'data-col': s.col }, s.text));
  for (const t of lay.tgt) svg.append(svgEl('text', { x: t.x, y: t.y, 'text-anchor': 'middle', class: 'label tgt', 'data-row': t.row }, t.text));
  return svg;
}

/** Adds one row of a fixed-pitch links layout (linksRow) to an <svg> made by renderLinks. */
export function appendLinksRow(svg, row) {
  const g = svg.querySelector('g.link-lines');
  for (const l of row.links) {
    g.append(svgEl('line', {
      x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2, stroke: l.stroke, 'stroke-width': l.strokeWidth,
      'stroke-opacity': l.opacity, 'stroke-linecap': 'round', 'data-row': l.row, 'data-col': l.col, 'data-weight': l.weight,
    }));
  }
  const t = row.tgt;
  svg.append(svgEl('text', { x: t.x, y: t.y, 'text-anchor': 'middle', class: 'label tgt', 'data-row': t.row }, t.text));
  if (Number(svg.getAttribute('width')) < row.width) {
    const height = svg.viewBox.baseVal.height;
    svg.setAttribute('viewBox', `0 0 ${row.width} ${height}`);
    svg.setAttribute('width', row.width);
  }
}

/** Renders "S_k", "w_{ki}" style formula text with <sub> elements (text nodes only; no HTML parsing). */
export function formulaNodes(text) {
  const out = [];
  const re = /_(\{[^}]*\}|[A-Za-z0-9])/g;
  let last = 0, m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    const sub = document.createElement('sub');
    sub.textContent = m[1].startsWith('{') ? m[1].slice(1, -1) : m[1];
    out.push(sub);
    last = re.lastIndex;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}
