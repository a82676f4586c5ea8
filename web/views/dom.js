// DOM helpers for the page's renderers: an element builder (text goes in as text nodes, attributes
// through setAttribute; never innerHTML, so nothing is parsed as HTML and the CSP's no-inline rules
// hold), formula text with <sub> subscripts, a language tag for Hangul, and blob: downloads.
import { formulaNodes } from './render.js';

/** Creates an HTML element: props.class, props.text, props.dataset, on* listeners, other attributes. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c);
  return el;
}

/** A formula ("c_k = Σ_i w_{ki} h_i") as <code> with subscripts. */
export const code = (formula) => h('code', { class: 'formula' }, formulaNodes(formula));

/** "ko" for text with Hangul (screen readers then pronounce it as Korean), else undefined. */
export const langOf = (text) => (/[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/.test(text) ? 'ko' : undefined);

/** Downloads a Blob under a file name through a temporary blob: URL and an <a download>. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, class: 'sr-only' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}
