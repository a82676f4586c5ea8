// The page as a link: the URL's hash holds the shipped model, the input, the forced prefix, the steps
// decoded, the step inspected, the beam width searched and any what-if edits, kept up to date as they
// change (a user's own checkpoint cannot be linked: the hash is then cleared). Opening such a link
// restores them. Interface: readLink(), writeLink(), restoreLink(link).
//   #model=g2p-ko&input=국물&steps=7&step=3&beam=5&edits=2.4.1
// word: a pronunciation model's input of several words, the one watched (0, the first, is not written).
// edits: "k.col.span" for each edit, step k looking only at `span` source tokens from `col` on.
import { state } from './state.js';
import { $, showError } from './page.js';
import { newSession, stepOnce } from './playback.js';
import { selectStep } from './inspector.js';

/** The link's fields from the URL's hash, or null when it names no model. */
export function readLink() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (!p.get('model')) return null;
  const int = (k) => (/^\d+$/.test(p.get(k) ?? '') ? Number(p.get(k)) : 0);
  const edits = (p.get('edits') ?? '').split(',').filter(Boolean).map((e) => e.split('.').map(Number))
    .filter((e) => e.length === 3 && e.every((x) => Number.isInteger(x) && x >= 0) && e[2] >= 1);
  return { model: p.get('model'), input: p.get('input') ?? '', prefix: p.get('prefix') ?? '', word: int('word'), steps: int('steps'), step: int('step'), beam: int('beam'), edits };
}

let timer = 0;
/** Writes the page's state into the hash, a moment after the last change (replaceState: no history entry). */
export function writeLink() {
  clearTimeout(timer);
  timer = setTimeout(write, 250);
}

function write() {
  const e = state.current;
  if (!e || e.user) {
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    return;
  }
  const p = new URLSearchParams({ model: e.id });
  const sess = state.sess;
  const input = sess ? sess.input ?? sess.text : $('source').value;
  const prefix = sess ? sess.prefix : $('prefix').value.trim();
  if (input) p.set('input', input);
  if (state.word > 0) p.set('word', String(state.word));
  if (prefix) p.set('prefix', prefix);
  if (sess?.steps.length) p.set('steps', String(sess.steps.length));
  if (sess && state.selected !== null) p.set('step', String(state.selected + 1));
  if ($('beam').dataset.state === 'done' && $('beam-results').childElementCount) p.set('beam', $('beam-size').value);
  if (sess?.overrides.size) {
    p.set('edits', [...sess.overrides].map(([k, row]) => {
      const col = row.findIndex((w) => w > 0);
      return `${k}.${col}.${row.filter((w) => w > 0).length}`;
    }).join(','));
  }
  const hash = `#${p.toString()}`;
  if (hash !== location.hash) history.replaceState(null, '', hash);
}

/**
 * Restores a link once its model is selected and loaded: the input and prefix, the steps decoded with
 * its edits, the step inspected and the beam search.
 */
export function restoreLink(link) {
  $('source').value = link.input;
  state.sourceEdited = true;
  state.word = link.word;
  $('prefix').value = link.prefix;
  if (link.beam) $('beam-size').value = String(Math.min(16, link.beam));   // (searched when the decode ends)
  if (!link.input) return;
  try {
    newSession();
    if (link.edits.length) {
      const n = state.sess.src.length;
      const overrides = new Map();
      for (const [k, col, span] of link.edits) {
        if (col + span > n) throw new Error(`the link's edit ${k}.${col}.${span} looks past the input's ${n} tokens`);
        overrides.set(k, new Float32Array(n).fill(1 / span, col, col + span));
      }
      newSession(overrides);
    }
    for (let i = 0; i < link.steps && stepOnce(); i++);
    if (link.step) selectStep(link.step - 1);
  } catch (e) {
    showError(`This link could not be restored in full: ${e.message ?? e}`);
  }
}
