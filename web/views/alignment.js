// The alignment matrix as pure geometry: target tokens down (one row per decoder step), source
// tokens across, each cell coloured by its attention weight with viridis. alignmentLayout() gives the
// cells; matrixFigure() adds token labels and margins; alignmentSVG() serialises a figure into a
// standalone SVG file. Renderers (web/views/render.js) draw the same figures into the DOM or a canvas.
import { viridis, hex, inkFor } from './colormap.js';
import { escapeXML, fmt } from './format.js';

/**
 * Cells of a rows x cols attention matrix (row-major weights).
 * size: a number (square cell side) or { cell, cellWidth, cellHeight, width, height, x, y, gap }.
 * Returns [{ x, y, w, h, fill, ink, weight, row, col }]: fill is viridis(weight) as "#rrggbb",
 * ink the text colour that reads on it.
 */
export function alignmentLayout(attention, rows, cols, size = 24) {
  const o = typeof size === 'number' ? { cell: size } : size;
  const cw = o.cellWidth ?? o.cell ?? (o.width ? o.width / Math.max(1, cols) : 24);
  const ch = o.cellHeight ?? o.cell ?? (o.height ? o.height / Math.max(1, rows) : cw);
  const x0 = o.x ?? 0, y0 = o.y ?? 0, gap = o.gap ?? 0;
  const cells = [];
  for (let k = 0; k < rows; k++) {
    for (let t = 0; t < cols; t++) {
      const weight = attention[k * cols + t];
      const c = viridis(weight);
      cells.push({ x: x0 + t * cw, y: y0 + k * ch, w: cw - gap, h: ch - gap, fill: hex(c), ink: inkFor(c), weight, row: k, col: t });
    }
  }
  return cells;
}

/** Source positions of row `row` whose weight is at least `min`, heaviest first (the argmax always). */
export function rowLinks(attention, rows, cols, row, min = 0.1) {
  if (row < 0 || row >= rows) return [];
  const out = [];
  let best = 0;
  for (let t = 0; t < cols; t++) {
    const w = attention[row * cols + t];
    if (w > attention[row * cols + best]) best = t;
    if (w >= min) out.push({ col: t, weight: w });
  }
  if (cols > 0 && !out.some((l) => l.col === best)) out.push({ col: best, weight: attention[row * cols + best] });
  return out.sort((a, b) => b.weight - a.weight || a.col - b.col);
}

/** Target steps that put at least `min` of their weight on source position `col`, heaviest first. */
export function colLinks(attention, rows, cols, col, min = 0.1) {
  if (col < 0 || col >= cols) return [];
  const out = [];
  for (let k = 0; k < rows; k++) {
    const w = attention[k * cols + col];
    if (w >= min) out.push({ row: k, weight: w });
  }
  return out.sort((a, b) => b.weight - a.weight || a.row - b.row);
}

/** Rough rendered width of a label in px: CJK/Hangul (wide) code points count 1 em, others 0.6 em. */
export function textWidth(s, px) {
  let w = 0;
  for (const ch of String(s)) {
    const c = ch.codePointAt(0);
    const wide = (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xff60);
    w += wide ? px : 0.6 * px;
  }
  return w;
}

/** Makes whitespace tokens visible in labels ("␣" for a space, as char models have them). */
export const showToken = (s) => (s === ' ' ? '␣' : String(s).replace(/\s/g, '␣'));

// Conjoining Hangul jamo (U+1100..U+11FF): what a model with srcHangul 'jamo' reads of each syllable.
const isLead = (c) => c >= 0x1100 && c <= 0x1112, isVowel = (c) => c >= 0x1161 && c <= 0x1175, isTail = (c) => c >= 0x11a8 && c <= 0x11c2;
const cp = (t) => (typeof t === 'string' && [...t].length === 1 ? t.codePointAt(0) : -1);

/**
 * The syllables a run of source tokens spells when they are Hangul jamo (a leading consonant, a vowel
 * and maybe a final one: the NFD of one precomposed syllable): [{ text, first, count }] covering every
 * token in order (a token of no syllable is its own group, text ''), or null when no syllable is there.
 */
export function hangulSyllables(tokens) {
  const out = [];
  let any = false;
  for (let i = 0; i < tokens.length;) {
    const n = isLead(cp(tokens[i])) && isVowel(cp(tokens[i + 1])) ? (isTail(cp(tokens[i + 2])) ? 3 : 2) : 0;
    if (n) {
      out.push({ text: tokens.slice(i, i + n).join('').normalize('NFC'), first: i, count: n });
      any = true;
      i += n;
    } else {
      out.push({ text: '', first: i, count: 1 });
      i += 1;
    }
  }
  return any ? out : null;
}

/** Names for tokens in messages: the visible token, plus its 1-based position when it occurs twice ("r #5"). */
export function tokenLabels(tokens) {
  const count = new Map();
  for (const t of tokens) count.set(t, (count.get(t) ?? 0) + 1);
  return tokens.map((t, i) => (count.get(t) > 1 ? `${showToken(t)} #${i + 1}` : showToken(t)));
}

/**
 * A labelled matrix figure: { width, height, cells, colLabels, rowLabels, title }.
 * r: { srcTokens, tgtTokens, attention, rows, cols }.
 * opts: cell (px, default 24), font (px, default 12), title (a string or lines), legend (a 0..1 ramp
 * below), vanilla (true: no attention; the source columns are drawn empty and one extra column, "h_T",
 * is the only thing the decoder sees).
 */
export function matrixFigure(r, opts = {}) {
  const cell = opts.cell ?? 24, font = opts.font ?? 12, pad = 6;
  const src = r.srcTokens.slice(0, r.cols).map(showToken);
  const tgt = r.tgtTokens.slice(0, r.rows).map(showToken);
  const extra = opts.vanilla ? 1 : 0;
  const colNames = opts.vanilla ? [...src, 'h_T'] : src;
  const longest = Math.max(0, ...colNames.map((s) => textWidth(s, font)));
  const rotate = longest > cell - 4;                     // tilt long source labels by 45 degrees
  const titleLines = opts.title ? [].concat(opts.title) : [];
  const titleH = titleLines.length * (font + 6) + (titleLines.length ? 2 : 0);
  const top = titleH + pad + (rotate ? Math.ceil(longest * Math.SQRT1_2 + font) : font + 4);
  const left = pad + Math.ceil(Math.max(font, ...tgt.map((s) => textWidth(s, font)))) + 6;
  const cols = r.cols + extra;
  let cells;
  if (opts.vanilla) {
    cells = [];
    for (let k = 0; k < r.rows; k++) {
      for (let t = 0; t < r.cols; t++)
        cells.push({ x: left + t * cell, y: top + k * cell, w: cell - 1, h: cell - 1, fill: null, ink: null, weight: 0, row: k, col: t, kind: 'blind' });
      cells.push({ x: left + r.cols * cell, y: top + k * cell, w: cell - 1, h: cell - 1, fill: null, ink: null, weight: 1, row: k, col: r.cols, kind: 'final' });
    }
  } else {
    cells = alignmentLayout(r.attention, r.rows, r.cols, { cell, x: left, y: top, gap: 1 }).map((c) => ({ ...c, kind: 'attn' }));
  }
  const colLabels = colNames.map((text, t) => {
    const x = left + t * cell + cell / 2;
    return rotate
      ? { text, x: x - font / 3, y: top - 6, rotate: -45, anchor: 'start', col: t }
      : { text, x, y: top - 6, rotate: 0, anchor: 'middle', col: t };
  });
  const rowLabels = tgt.map((text, k) => ({ text, x: left - 6, y: top + k * cell + cell / 2 + font / 3, anchor: 'end', row: k }));
  // Rotated labels lean right: leave room for the last one.
  const right = rotate ? Math.ceil(longest * Math.SQRT1_2) : 0;
  let bottom = top + r.rows * cell;
  let legend = null;
  if (opts.legend && !opts.vanilla) {
    // A viridis ramp from 0 to 1 under the matrix: 32 swatches and two end labels.
    const y = bottom + 10, n = 32, w = 5, hgt = Math.max(8, Math.round(font * 0.7));
    legend = {
      swatches: Array.from({ length: n }, (_, i) => ({ x: left + i * w, y, w: w + 0.5, h: hgt, fill: hex(viridis(i / (n - 1))) })),
      labels: [
        { text: '0', x: left - 4, y: y + hgt - 1, anchor: 'end' },
        { text: '1  attention weight', x: left + n * w + 4, y: y + hgt - 1, anchor: 'start' },
      ],
    };
    bottom = y + hgt;
  }
  const title = titleLines.map((text, i) => ({ text, x: pad, y: pad + font + i * (font + 6) }));
  const titleW = Math.max(0, ...titleLines.map((t) => textWidth(t, font) * 1.08 + 2 * pad));
  const legendW = legend ? left + 32 * 5 + 4 + textWidth(legend.labels[1].text, font) + pad : 0;
  return {
    width: Math.ceil(Math.max(left + cols * cell + pad + right, titleW, legendW)), height: Math.ceil(bottom + pad),
    cells, colLabels, rowLabels, font, cell, left, top, title, legend,
  };
}

/** A figure as a standalone SVG document (for the SVG export): white background, text in the page's font stack. */
export function alignmentSVG(r, opts = {}) {
  const f = matrixFigure(r, opts);
  const fam = escapeXML(opts.fontFamily ?? 'system-ui, "Noto Sans KR", NanumGothic, sans-serif');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" font-family="${fam}" font-size="${f.font}">`,
    `<title>${escapeXML(opts.title ?? 'attention alignment')}</title>`,
    `<rect width="${f.width}" height="${f.height}" fill="#ffffff"/>`,
  ];
  for (const t of f.title) out.push(`<text x="${t.x}" y="${t.y}" font-weight="bold" fill="#1b1b1b">${escapeXML(t.text)}</text>`);
  for (const c of f.cells) {
    const fill = c.kind === 'final' ? '#e8590c' : c.kind === 'blind' ? '#eeeeee' : c.fill;
    out.push(`<rect x="${c.x}" y="${c.y}" width="${c.w}" height="${c.h}" fill="${fill}"><title>${escapeXML(`${f.rowLabels[c.row]?.text} ← ${f.colLabels[c.col]?.text}: ${fmt(c.weight, 4)}`)}</title></rect>`);
  }
  for (const l of f.colLabels) {
    const tr = l.rotate ? ` transform="rotate(${l.rotate} ${l.x} ${l.y})"` : '';
    const body = l.text === 'h_T' ? 'h<tspan dy="3" font-size="75%">T</tspan>' : escapeXML(l.text);
    out.push(`<text x="${l.x}" y="${l.y}" text-anchor="${l.anchor}"${tr} fill="#1b1b1b">${body}</text>`);
  }
  for (const l of f.rowLabels) out.push(`<text x="${l.x}" y="${l.y}" text-anchor="end" fill="#1b1b1b">${escapeXML(l.text)}</text>`);
  if (f.legend) {
    for (const s of f.legend.swatches) out.push(`<rect x="${s.x}" y="${s.y}" width="${s.w}" height="${s.h}" fill="${s.fill}"/>`);
    for (const l of f.legend.labels) out.push(`<text x="${l.x}" y="${l.y}" text-anchor="${l.anchor}" fill="#555555">${escapeXML(l.text)}</text>`);
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}
