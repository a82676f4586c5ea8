// Tiny DOM helpers shared by the train and study panels: element builders (HTML and SVG, no
// innerHTML so nothing is parsed as markup), unique ids for label/control pairs, and the one-time
// stylesheet link (a <link> to 'self', which the page's CSP allows; inline styles it does not).
const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

const used = new Set();
/** An id not yet used in this document ("ts-task", then "ts-task-2", ...). */
export function uid(base) {
  let id = base, i = 1;
  while (used.has(id) || document.getElementById(id)) id = `${base}-${++i}`;
  used.add(id);
  return id;
}

/** Adds web/train-study.css to the document once. */
export function injectStyles() {
  const href = new URL('../train-study.css', import.meta.url).href;
  if (document.querySelector(`link[data-train-study]`)) return;
  document.head.append(h('link', { rel: 'stylesheet', href, 'data-train-study': '' }));
}

/**
 * Opens a panel's section: its <h2> (the page's own if it has one, else `title`), given an id the
 * section is labelled by, then the lede paragraph. `idBase` is the heading's id if none is set.
 */
export function sectionHead(section, idBase, title, ...lede) {
  if (!section.querySelector('h2')) section.append(h('h2', {}, title));
  const heading = section.querySelector('h2');
  if (!heading.id) heading.id = uid(idBase);
  section.setAttribute('aria-labelledby', heading.id);
  section.append(h('p', { class: 'ts-lede' }, ...lede));
}

/** A labelled control in a wrapper: label text, then the control (whose id it sets). */
export function field(labelText, control, hint) {
  const id = control.id || (control.id = uid(`ts-${control.name || 'f'}`));
  const hintEl = hint ? h('span', { class: 'ts-hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'ts-field' }, h('label', { for: id }, labelText), control, hintEl);
}

export function select(name, options, value) {
  return h('select', { name }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}
