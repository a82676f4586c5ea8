// The step inspector: for the inspected step (the latest while following), the query, the keys and
// values, the scores, the weights, the context and the next tokens (drawn by
// web/views/inspector-view.js), with ◀ / ▶ and "Follow latest". Interface: setupInspector({ onLook }),
// selectStep(k), stepBy(d), followLatest(), renderInspector(), renderInspectorPaced().
import { inspectorNodes, INSPECTOR_HINT } from '../views/inspector-view.js';
import { h } from '../views/dom.js';
import { LONG_SOURCE } from '../views/viewport.js';
import { state } from './state.js';
import { $, refocus, markUnknown } from './page.js';
import { markSelectedRow } from './matrix.js';
import { inspectedStep, inspectedMember } from './session.js';
import { writeLink } from './link.js';

let onLook = () => {};   // a ◎ press: onLook(k, i) makes step k look only at source token i

export function setupInspector(hooks) {
  onLook = hooks.onLook;
}

/** Inspects step k (a step of the watched decode). */
export function selectStep(k) {
  const sess = state.sess;
  if (!sess || k < 0 || k >= sess.steps.length) return;
  state.selected = k;
  renderInspector();
  writeLink();
}

/** Inspects the step d before (-1) or after (+1) the one inspected. */
export function stepBy(d) {
  if (state.sess) selectStep((state.selected ?? state.sess.steps.length - 1) + d);
}

export function followLatest() {
  state.selected = null;
  renderInspector();
  writeLink();
}

// A long source's inspector is the heaviest thing drawn per step. It is drawn in a task of its own
// after the next frame (the step's row is shown first, and the two never make one long task), and
// while steps come faster than ten a second (Run to end: one per frame) at most every 100 ms; the
// last step's is drawn as soon as the decode ends.
let inspectedAt = 0, inspectTimer = 0, inspectFrame = 0;
export function renderInspectorPaced() {
  clearTimeout(inspectTimer);
  cancelAnimationFrame(inspectFrame);
  const sess = state.sess;
  if (!sess || sess.src.length <= LONG_SOURCE) return renderInspector();
  const wait = sess.done ? 0 : Math.max(0, inspectedAt + 100 - performance.now());
  const draw = () => {
    if (state.sess !== sess) return;   // (a new session draws its own)
    inspectedAt = performance.now();
    renderInspector();
  };
  inspectFrame = requestAnimationFrame(() => { inspectTimer = setTimeout(draw, wait); });
}

let shownStep = null;   // the StepResult the inspector body shows
let shownMember = 0;   // the ensemble member it shows

// Rebuilding the inspector (or disabling ◀ / ▶) must not drop keyboard focus to <body>: a focused ◎
// moves to the ◎ of the same source token in the new body, a disabled button to its neighbour.
export function renderInspector() {
  const had = document.activeElement;
  const look = $('inspector-body').contains(had) ? had.closest('tr[data-i]')?.dataset.i : undefined;
  drawInspector();
  const keyCells = () => $('inspector-body').querySelectorAll('tr[data-i] > th'), at = (th) => Number(th.parentElement.dataset.i);
  markUnknown(keyCells(), at, state.sess?.unknown, true);
  markUnknown(keyCells(), at, state.sess?.bytes, true, 'bytes');
  if (had && had !== document.body && (!had.isConnected || had.disabled)) {
    refocus([look === undefined ? null : $('inspector-body').querySelector(`tr[data-i="${look}"] .look`),
      $('next-step'), $('prev-step'), $('follow'), $('restart'), $('play'), $('source')]);
  }
}

function drawInspector() {
  const body = $('inspector-body');
  const sess = state.sess;
  const n = sess?.steps.length ?? 0;
  $('prev-step').disabled = $('next-step').disabled = $('follow').disabled = n === 0;
  $('follow').setAttribute('aria-pressed', String(state.selected === null));
  if (!sess || n === 0) {
    $('inspector-title').textContent = 'No step yet';
    body.dataset.step = '';
    shownStep = null;
    body.replaceChildren(h('p', { class: 'hint', text: INSPECTOR_HINT }));
    markSelectedRow();
    return;
  }
  const k = Math.min(state.selected ?? n - 1, n - 1);
  $('prev-step').disabled = k === 0;
  $('next-step').disabled = k >= n - 1;
  const r = sess.steps[k];
  $('inspector-title').textContent = `Step ${k + 1} of ${n}${sess.done ? '' : '…'}: “${r.text}”`;
  body.dataset.step = String(k);
  // A step already on show (an inspected step while others are decoded) is not rebuilt.
  const m = inspectedMember(sess, state.member);
  if (shownStep === r && shownMember === m && body.firstChild) return markSelectedRow();
  shownStep = r;
  shownMember = m;
  const config = sess.model.models?.[m].config ?? sess.model.config;
  const nodes = inspectorNodes({ step: inspectedStep(sess, k, state.member), index: k, memory: sess.memories[m], config, srcTokens: sess.src, onLook });
  // An ensemble: whose numbers these are (the token is the ensemble's choice).
  const note = sess.members > 1 ? [h('p', { class: 'hint member-note', text: `Model ${m + 1} of the ${sess.members} decoding together: its own query, keys, scores, weights and context. The token and its probability are the ensemble's (the mean of the models' log-probabilities).` })] : [];
  body.replaceChildren(...note, ...nodes);
  markSelectedRow();
}
