// What if: a step's attention moved onto one source token (◎ in the inspector, or a cell dragged in
// the matrix) and the decode run again from there; the note then compares the output with the
// model's own output without the edits. Interface: whatIf(k, col), afterFinish(), clearWhatIfs(),
// hideWhatIfNote().
import { oneHot, argmax } from '../views/inspect.js';
import { state } from './state.js';
import { $, errText, showError, refocus } from './page.js';
import { outputText, sourceInput, isVanilla } from './session.js';
import { inputKey } from './controls.js';
import { newSession, stepOnce, loop, stopLoop } from './playback.js';
import { renderInspector } from './inspector.js';

/** Re-decodes with step k looking only at source token col (earlier edits kept, later ones dropped). */
export function whatIf(k, col) {
  const sess = state.sess;
  if (!sess || k >= sess.steps.length || sess.key !== inputKey() || isVanilla(sess)) return;
  const fromLook = !!document.activeElement?.closest('#inspector-body .look');  // pressed ◎ (keyboard or pointer)
  const overrides = new Map([...sess.overrides].filter(([j]) => j < k));
  overrides.set(k, oneHot(sess.src.length, col));
  stopLoop();
  try {
    newSession(overrides);
  } catch (e) {
    return showError(errText(e));
  }
  $('whatif-text').textContent = `What if step ${k + 1} had looked only at “${state.sess.srcLabels[col]}”? Re-decoding from there…`;
  $('whatif-note').hidden = false;
  for (let j = 0; j <= k; j++) if (!stepOnce()) break;
  state.selected = k;
  renderInspector();
  if (fromLook) refocus([$('inspector-body').querySelector(`tr[data-i="${col}"] .look`)]);
  if (!state.sess.done) loop('play');
}

/** A decode ended: an edited one's note says what the edits changed. */
export function afterFinish() {
  const sess = state.sess;
  if (!sess || sess.overrides.size === 0) {
    $('whatif-note').hidden = true;
    return;
  }
  let before = '';
  try {
    before = sess.model.translate(sourceInput(sess.model, sess.text), sess.prefix ? { prefix: sourceInput(sess.model, sess.prefix) } : {}).text;
  } catch { /* the note then omits it */ }
  const edits = [...sess.overrides].map(([k, row]) => `step ${k + 1} → “${sess.srcLabels[argmax(row)]}”`).join(', ');
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
