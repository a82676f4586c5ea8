// The page's DOM plumbing shared by the controller modules: element look-up, the error line and how
// an error is worded, the tooltip, handing keyboard focus on, the watch panel's status line and the
// marks on source tokens the model does not know. No module state.
import { AttnseqError } from '../../wasm/attnseq.js';

export const $ = (id) => document.getElementById(id);

export const errText = (e) => (e instanceof AttnseqError ? `${e.code}: ${e.message}` : String(e?.message ?? e));
// The engine Worker's errors carry a code too, without being AttnseqErrors.
export const codeText = (e) => (e instanceof AttnseqError || !e?.code ? errText(e) : `${e.code}: ${e.message}`);
export const showError = (msg) => { $('error').textContent = msg; };
export const clearError = () => { $('error').textContent = ''; };

/** Focuses the first usable element of the list (without scrolling: each is near the lost focus). */
export function refocus(list) {
  list.find((el) => el?.isConnected && !el.disabled)?.focus({ preventScroll: true });
}

export function setWatchState(state, msg) {
  $('watch').dataset.state = state;
  if (msg) $('watch-status').textContent = msg;
}

/** The tooltip over `el` (anything with getBoundingClientRect), above it when there is room. */
export function showTip(el, text) {
  const tip = $('tip');
  tip.textContent = text;
  tip.hidden = false;
  const r = el.getBoundingClientRect();
  const w = tip.offsetWidth;
  tip.style.left = `${Math.max(4, Math.min(r.left + r.width / 2 - w / 2, document.documentElement.clientWidth - w - 4))}px`;
  // Above the element when there is room (the row below stays visible), else below it.
  const above = r.top - tip.offsetHeight - 6;
  tip.style.top = `${above >= 4 ? above : r.bottom + 6}px`;
}
export const hideTip = () => { $('tip').hidden = true; };

// Unknown source tokens keep their spelling in the matrix and the inspector, but are marked: their
// weights belong to <unk>, not to the word. unknown: the session's set of unknown positions.
export function markUnknown(cells, index, unknown, title, kind = 'unk') {
  if (!unknown?.size) return;
  const what = kind === 'bytes' ? 'spelt as bytes: the tokenizer has no piece for this character (byte fallback)'
    : 'unknown to this model: it read this as <unk>';
  for (const th of cells) {
    if (!unknown.has(index(th))) continue;
    th.classList.add(kind);
    if (title) th.title = what;   // (the matrix has its own tooltip)
    th.setAttribute('aria-label', `${th.getAttribute('aria-label') ?? th.textContent}, ${kind === 'bytes' ? 'spelt as bytes (no piece for this character)' : 'unknown to this model (read as <unk>)'}`);
  }
}
