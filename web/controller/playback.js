// Playing the watched decode: a session for what the fields say (encoded again when the model, input
// or prefix changed), one engine step per Step press, per tick of Play at the slider's pace or per
// frame for Run to end, pause, restart, and the end of a decode (the page's wiring hears of it
// through onFinish). Interface: setupPlayback({ onFinish }), newSession(overrides), ensureSession(),
// stepOnce(), stepPressed(), loop(mode), stopLoop(), play(), restart(), rewake(), disposeSession(), resetWatch(),
// inputChanged(), pickWord(i).
import { calendarNote } from '../dates.js';
import { pronunciationNote } from '../pronunciation.js';
import { lexiconNote } from './lexicon.js';
import { renderWords } from './words.js';
import { state } from './state.js';
import { $, errText, showError, clearError, setWatchState } from './page.js';
import { openSession, stepSession, closeSession, outputText, isVanilla } from './session.js';
import { readInput, inputKey, checkInput, speed, updateButtons, updatePlayButton } from './controls.js';
import { buildMatrix, appendMatrixRow, clearMatrix, showUnits, showMembers } from './matrix.js';
import { renderLinksView, clearLinks } from './links.js';
import { renderInspector, renderInspectorPaced } from './inspector.js';
import { LONG_SOURCE } from '../views/viewport.js';

let onFinish = () => {};   // onFinish(why): a decode ended ('eos', 'max' or 'error')

export function setupPlayback(hooks) {
  onFinish = hooks.onFinish;
}

// The next frame, then a task of its own: a step then never shares a task with the page's rendering.
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

export function disposeSession() {
  state.loopId++;
  if (state.sess) closeSession(state.sess);
  state.sess = null;
}

/** Encodes the input and starts a decoder; overrides: step index -> attention row (what-if edits). */
export function newSession(overrides = new Map()) {
  const { text, prefix } = readInput();
  disposeSession();
  const sess = state.sess = openSession(state.current, text, prefix, overrides);
  sess.input = $('source').value;   // the whole input (the session may read one of its words)
  state.selected = null;
  renderWords(pickWord);
  $('watch').classList.toggle('vanilla', isVanilla(sess));
  showUnits(sess.model);
  showMembers(sess);
  buildMatrix();
  renderLinksView();
  renderInspector();
  setWatchState('ready', `Encoded ${sess.enc.length} source token${sess.enc.length === 1 ? '' : 's'}. Press ▶ Play or Step.`);
  updateOutput();
  updateButtons();
}

/** A session for the current input, re-encoding when the model, input or prefix changed. */
export function ensureSession() {
  if (!state.current?.model || state.loading) return false;
  if (state.sess && state.sess.key === inputKey()) return true;
  try {
    clearError();
    newSession();
    return true;
  } catch (e) {
    showError(errText(e));
    return false;
  }
}

/** Runs one decoder step in the engine and shows it. Returns whether another step can follow. */
export function stepOnce() {
  if (!ensureSession() || state.sess.done) return false;
  const sess = state.sess;
  const k = sess.steps.length;
  let r;
  try {
    r = stepSession(sess);
  } catch (e) {
    showError(errText(e));
    finish('error');
    renderInspector();
    return false;
  }
  appendMatrixRow(r, k);
  updateOutput();
  renderLinksView(k);
  renderInspectorPaced();
  if (sess.done) {
    finish(r.done ? 'eos' : 'max');
    return false;
  }
  setWatchState(state.playing ? 'playing' : 'ready', `Step ${k + 1}: “${r.text}”.`);
  updateButtons();
  return true;
}

function finish(why) {
  const sess = state.sess;
  sess.done = true;
  const n = sess.steps.length;
  const msg = why === 'eos' ? `Done: ${n} step${n === 1 ? '' : 's'}, ending with the end-of-sentence token.`
    : why === 'max' ? `Stopped at the maximum length (${n} steps) without an end-of-sentence token.` : 'Stopped by an error.';
  setWatchState('done', msg);
  updateButtons();
  onFinish(why);
}

// A long source's encoding, first step and drawing in one task would block the page for longer than
// issue 9's 100 ms: its first step waits for the next frame, in a task of its own. A short source's
// first step runs at once, in the task that encoded it.
const splitFirstStep = (sess) => sess.src.length > LONG_SOURCE && sess.steps.length === 0;

/** The Step button: one step (an input not encoded yet is encoded first). */
export async function stepPressed() {
  const before = state.sess;
  if (!ensureSession()) return;
  const sess = state.sess;
  if (sess !== before && splitFirstStep(sess)) {
    await frame();
    if (state.sess !== sess) return;   // replaced while waiting (a new input, model or what-if)
  }
  stepOnce();
}

/** Steps until the end or until stopped: mode 'play' at the slider's pace, 'run' one step per frame. */
export async function loop(mode) {
  const id = ++state.loopId;
  state.playing = mode === 'play';
  updatePlayButton();
  if (state.sess && splitFirstStep(state.sess)) await frame();
  while (id === state.loopId) {
    if (!stepOnce()) break;
    await (mode === 'run' ? frame() : pace(performance.now(), id));
  }
  if (id === state.loopId) {
    state.playing = false;
    updatePlayButton();
  }
}

// Waits until the speed's delay has passed since `since` (or loop `id` is stopped). A speed change
// wakes it (rewake) to wait only for what the new speed leaves: going faster does not sit out the old delay.
let wake = null;
async function pace(since, id) {
  for (let left = speed()[0]; left > 0 && id === state.loopId; left = since + speed()[0] - performance.now()) {
    await new Promise((r) => { wake = r; setTimeout(r, left); });
  }
}
/** The speed changed: the wait in progress is worked out again. */
export const rewake = () => wake?.();

export function stopLoop() {
  state.loopId++;
  state.playing = false;
  updatePlayButton();
}

export function play() {
  if (state.playing) return stopLoop();
  const sess = state.sess;
  if (sess && sess.done && sess.key === inputKey()) {
    try { newSession(sess.overrides); } catch (e) { return showError(errText(e)); }
  }
  if (!ensureSession()) return;
  loop('play');
}

export function restart() {
  const was = state.playing;
  stopLoop();
  if (!state.current?.model) return;
  try {
    clearError();
    newSession(state.sess && state.sess.key === inputKey() ? state.sess.overrides : new Map());
  } catch (e) {
    return showError(errText(e));
  }
  if (was) loop('play');
}

/** A word of a pronunciation model's input was picked in the line of words: it is decoded, playing. */
export function pickWord(i) {
  state.word = i;
  stopLoop();
  renderWords(pickWord);
  play();
}

/** The input or the prefix was edited: playing stops and the session is out of date. */
export function inputChanged() {
  stopLoop();
  renderWords(pickWord);
  $('whatif-note').hidden = true;
  updateButtons();
  if (state.sess && state.sess.key !== inputKey()) setWatchState('idle', checkInput().empty ? 'No input: type one to decode it.' : 'The input changed: press ▶ Play or Step to decode it.');
}

/** The output line: the decode's text so far, a note when a finished dates output is no real day, and IPA
 * beside a pronunciation. */
function updateOutput() {
  const sess = state.sess;
  $('output').textContent = outputText(sess);
  // A finished dates output that names no real day (2013-02-30) is certainly wrong: say so beside it.
  const note = sess ? calendarNote(sess.entry?.task ?? sess.model.metadata?.task, outputText(sess), sess.done) : '';
  $('date-note').textContent = note;
  $('date-note').hidden = !note;
  // A pronunciation model's ARPAbet output also in IPA (docs/g2p.md), growing with the output.
  const ipa = sess ? pronunciationNote(sess.model.tgtVocab, outputText(sess)) : '';
  $('ipa-note').textContent = ipa;
  $('ipa-note').hidden = !ipa;
  // The word's dictionary entry, when the model has a dictionary and the word is in it.
  const lex = sess ? lexiconNote(sess.entry, sess.text ?? '', outputText(sess), sess.done, () => { if (state.sess === sess) updateOutput(); }) : '';
  $('lexicon-note').textContent = lex;
  $('lexicon-note').hidden = !lex;
}

/** The watch panel with no decode (a model was chosen, or is loading). */
export function resetWatch() {
  renderWords(pickWord);
  clearMatrix();
  showUnits(state.current?.model);
  clearLinks();
  $('output').textContent = '';
  $('date-note').hidden = true;
  $('whatif-note').hidden = true;
  renderInspector();
  setWatchState('idle', state.current?.model ? 'Press ▶ Play to watch the decoder, or Step through it.' : 'Pick a model.');
}
