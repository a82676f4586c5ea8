// What if: a step's attention moved onto one source token (◎ in the inspector, or a cell dragged in
// the matrix) and the decode run again from there; the note then compares the output with the
// model's own output without the edits: the watched decode's when it has been seen to the end, else
// translated in the engine Worker. Interface: whatIf(k, col), afterFinish(why), clearWhatIfs(), hideWhatIfNote().
import { oneHot, argmax } from '../views/inspect.js';
import { state } from './state.js';
import { $, errText, showError, refocus } from './page.js';
import { outputText, sourceInput, isVanilla } from './session.js';
import { inputKey } from './controls.js';
import { newSession, stepOnce, loop, stopLoop } from './playback.js';
import { renderInspector } from './inspector.js';
import { translateInWorker } from './engine.js';

// The output without edits, per session key (and model: a user's model may be replaced under the
// same name): { model, text } once known, { model, pending } while the Worker translates it.
const baselines = new Map();
const KEEP = 8;
function remember(key, b) {
  baselines.delete(key);
  baselines.set(key, b);
  if (baselines.size > KEEP) baselines.delete(baselines.keys().next().value);
}
function baseline(sess) {
  const b = baselines.get(sess.key);
  if (b?.model === sess.model) return b;
  const m = sess.model;
  const made = { model: m };
  made.pending = translateInWorker(sess.entry, sourceInput(m, sess.text), { ...sess.entry.decode, ...(sess.prefix ? { prefix: sourceInput(m, sess.prefix) } : {}) }).then(
    (r) => (made.text = r.text),
    () => {   // the note then leaves it empty, and the next edit asks again
      if (baselines.get(sess.key) === made) baselines.delete(sess.key);
      return '';
    });
  remember(sess.key, made);
  return made;
}

// What each edit looked at, in words: the source token, or the word whose pieces share the weight.
const editLabels = new WeakMap();   // attention row -> label

/**
 * Re-decodes with step k looking only at source token col, or at the `span` tokens from col on with
 * equal weights (a word's pieces, named `label`); earlier edits kept, later ones dropped.
 */
export function whatIf(k, col, span = 1, label = null) {
  const sess = state.sess;
  if (!sess || k >= sess.steps.length || sess.key !== inputKey() || isVanilla(sess)) return;
  const fromLook = !!document.activeElement?.closest('#inspector-body .look');  // pressed ◎ (keyboard or pointer)
  const overrides = new Map([...sess.overrides].filter(([j]) => j < k));
  const row = span > 1 ? new Float32Array(sess.src.length).fill(1 / span, col, col + span) : oneHot(sess.src.length, col);
  editLabels.set(row, label ?? sess.srcLabels[col]);
  overrides.set(k, row);
  stopLoop();
  try {
    newSession(overrides);
  } catch (e) {
    return showError(errText(e));
  }
  baseline(state.sess);   // asked for now, so that it is there when the decode ends
  const who = state.sess.members > 1 ? ` (each of the ${state.sess.members} models decoding together)` : '';
  $('whatif-text').textContent = `What if step ${k + 1} had looked only at “${editLabels.get(row)}”${who}? Re-decoding from there…`;
  $('whatif-note').hidden = false;
  for (let j = 0; j <= k; j++) if (!stepOnce()) break;
  state.selected = k;
  renderInspector();
  if (fromLook) refocus([$('inspector-body').querySelector(`tr[data-i="${col}"] .look`)]);
  if (!state.sess.done) loop('play');
}

/** A decode ended: an unedited one's output is remembered, an edited one's note says what changed. */
export function afterFinish(why) {
  const sess = state.sess;
  if (sess.overrides.size === 0) {
    if (why !== 'error') remember(sess.key, { model: sess.model, text: outputText(sess) });
    $('whatif-note').hidden = true;
    return;
  }
  const b = baseline(sess);
  if (b.text !== undefined) return writeNote(sess, b.text);
  b.pending.then((text) => { if (state.sess === sess) writeNote(sess, text); });
}

function writeNote(sess, before) {
  const edits = [...sess.overrides].map(([k, row]) => `step ${k + 1} → “${editLabels.get(row) ?? sess.srcLabels[argmax(row)]}”`).join(', ');
  $('whatif-text').textContent = `With your edit${sess.overrides.size > 1 ? 's' : ''} (${edits}) the output is “${outputText(sess)}”; ` +
    `without ${sess.overrides.size > 1 ? 'them' : 'it'} the model says “${before}”.`;
  $('whatif-note').hidden = false;
}

export const hideWhatIfNote = () => { $('whatif-note').hidden = true; };

/** Undo: the decode without edits, run to the end. */
export function clearWhatIfs() {
  if (!state.sess) return;
  stopLoop();
  try {
    newSession();
  } catch (e) {
    return showError(errText(e));
  }
  hideWhatIfNote();
  loop('run');
}
