// Choosing the model: the picker, the first shipped model at start-up, a user's checkpoint (file
// input, drag and drop, or the training panel through loadUserBytes) with a plain-words message beside
// the file input when it is refused, and the chosen model's example chips and prefix hint (the first
// output token of an example, translated in the engine Worker). Interface: startModels(),
// selectModel(id), loadUserBytes(source, label), loadUserFile(file), showFileError(label, e).
import { loadModel, AttnseqError } from '../../wasm/attnseq.js';
import { h } from '../views/dom.js';
import { state } from './state.js';
import { $, errText, clearError, showError } from './page.js';
import { readManifest, ensureModel, fillSelect, describe, examplesFor } from './catalog.js';
import { updateButtons, refreshNotes } from './controls.js';
import { stopLoop, disposeSession, resetWatch, inputChanged } from './playback.js';
import { resetWord } from './words.js';
import { clearCompare } from './compare.js';
import { clearBeam } from './beam.js';
import { translateInWorker } from './engine.js';
import { readLink, restoreLink } from './link.js';

/** Reads the shipped list, fills the picker and selects its first model, unless a user's file came first. */
export async function startModels() {
  await readManifest();
  fillSelect();
  if (!state.current && state.pendingUser === 0) {
    const link = readLink();
    const linked = link && state.entries.get(link.model);
    const first = linked ?? openingModel();
    if (linked) {
      selectModel(linked.id).then(() => { if (state.current === linked && linked.model) restoreLink(link); });
    } else if (first) {
      selectModel(first.id).then(() => {
        if (link) showError(`This link names the model “${link.model}”, which this page does not have; it opens on its first model instead.`);
        else autoplay(first);
      });
    }
    else $('model-info').textContent = 'No shipped models: load your own checkpoint.';
  }
}

// The page shows what it is for on its own: the opening model plays its first example, unless the
// visitor asked the system for reduced motion or has already done something (another model, their
// own input or file, a step).
function autoplay(entry) {
  if (globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
  if (state.current !== entry || state.sess || state.sourceEdited || $('play').disabled) return;
  $('play').click();
}

// The model the page opens on: the first of models/index.json (translation from English), or the
// first whose target is a language the visitor's browser asks for before it (French for a reader of
// French), when the list names its languages (`target`).
function openingModel() {
  const shipped = [...state.entries.values()].filter((e) => !e.user);
  const first = shipped[0];
  if (!first?.target) return first;
  const wanted = (navigator.languages ?? [navigator.language]).map((l) => String(l).slice(0, 2).toLowerCase());
  for (const lang of wanted) {
    if (lang === first.target) return first;
    const other = shipped.find((e) => e.target === lang && e.source === first.source);
    if (other) return other;
  }
  return first;
}

// What to type, in the terms of the model's task.
const HINTS = {
  pron: 'Type a word (or several: pick the one to watch), or pick an example.',
  dates: 'Type a date, in any common form, or pick an example.',
  translate: 'Type a sentence, or pick an example.',
  'en-ko': 'Type a sentence of the toy grammar (names, a verb, a place or thing), or pick an example.',
  reverse: 'Type a few letters (a to z) to reverse, or pick an example.',
};
function inputHint(entry) {
  const c = entry.model.config;
  if (c.tokenizer === 'ids') return 'Type token ids separated by commas, or pick an example.';
  return HINTS[entry.task] ?? (c.srcTokenizer === 'char' ? 'Type some text, or pick an example.' : 'Type a sentence, or pick an example.');
}

function fillExamples(entry) {
  $('source-hint').textContent = inputHint(entry);
  const ex = entry.examples.length ? entry.examples : examplesFor(entry.task);
  $('examples').replaceChildren(...ex.map((text) => h('button', {
    type: 'button', class: 'chip', text, 'aria-label': `Use example: ${text}`,
    onclick: () => { $('source').value = text; state.sourceEdited = false; resetWord(); inputChanged(); },
  })));
  // A plausible prefix for the placeholder: the first output token of another example.
  $('prefix').placeholder = 'target tokens';
  if (ex.length && entry.model.config.tokenizer !== 'ids') {
    const seq = state.loadSeq;
    translateInWorker(entry, ex[1] ?? ex[0], { maxLength: 4 }).then((r) => {
      if (seq !== state.loadSeq || state.current !== entry || !r.tgtTokens.length) return;
      $('prefix').placeholder = `e.g. ${r.words?.target[0] ?? r.tgtTokens[0]}`;   // (a subword model: its first word)
      refreshNotes();   // (a prefix error quotes the hint)
    }, () => {});       // (the generic hint stays)
  }
  if (ex.length && (!state.sourceEdited || !$('source').value.trim())) {
    $('source').value = ex[0];
    state.sourceEdited = false;
  }
}

export async function selectModel(id) {
  const entry = state.entries.get(id);
  if (!entry) return;
  const seq = ++state.loadSeq;
  const prevTask = state.current?.task ?? state.current?.model?.config.task ?? null;
  stopLoop();
  disposeSession();
  state.current = entry;
  $('model').value = id;
  state.loading = true;
  updateButtons();
  clearError();
  clearCompare();
  clearBeam();
  $('model-info').textContent = `Loading ${entry.title}…`;
  try {
    const model = await ensureModel(entry);
    if (seq !== state.loadSeq) return;
    state.loading = false;
    if (!entry.task) entry.task = model.config.task;
    if (entry.task !== prevTask) $('prefix').value = '';
    $('model-info').textContent = describe(entry, model);
    fillExamples(entry);
    resetWatch();
  } catch (e) {
    if (seq !== state.loadSeq) return;
    state.loading = false;
    $('model-info').textContent = `${entry.title}: not available.`;
    showError(`${entry.title} could not be loaded — ${errText(e)}` +
      (entry.user ? '' : '. The file may still be training: try again in a minute, or pick another model.'));
    fillSelect();
  }
  updateButtons();
}

let userLoads = 0;   // numbers each user model, so that the Worker never mistakes a replaced one for it

/**
 * Loads a checkpoint from bytes (or a Blob) as one of "Your models" and selects it. A second model
 * with the same label replaces the first. Resolves to its picker id; rejects (after showing the
 * message) when the checkpoint is refused, and the page keeps the model it had.
 */
export async function loadUserBytes(source, label) {
  const seq = ++state.loadSeq;
  state.pendingUser++;
  stopLoop();
  state.loading = true;
  updateButtons();
  clearError();
  showFileError(null);
  $('model-info').textContent = `Loading ${label}…`;
  let model;
  try {
    const bytes = source instanceof Blob ? new Uint8Array(await source.arrayBuffer()) : source;
    model = await loadModel(bytes);
  } catch (e) {
    state.pendingUser--;
    if (seq === state.loadSeq) {
      state.loading = false;
      $('model-info').textContent = state.current?.model ? describe(state.current, state.current.model) : 'No model loaded.';
      $('file').value = '';   // the picker must not keep showing the refused file's name
      showFileError(label, e);
      updateButtons();
    }
    throw e;
  }
  state.pendingUser--;
  const id = `user:${label}`;
  const old = state.entries.get(id);
  if (old?.model) {
    if (state.sess?.model === old.model) disposeSession();
    old.model.dispose();
  }
  const task = model.config.task;
  state.entries.set(id, {
    id, title: label, file: null, task, examples: examplesFor(task), user: true, model, promise: null, error: null,
    source, key: `${id}#${++userLoads}`,
  });
  fillSelect();
  if (seq === state.loadSeq) await selectModel(id);
  return id;
}

export function loadUserFile(file) {
  loadUserBytes(file, file.name).catch(() => {});  // the message is on the page already
}

/**
 * A refused checkpoint, said plainly beside the file input (where the eye is, also on a phone), with
 * the engine's exact message one click away; null hides it.
 */
export function showFileError(label, e) {
  const box = $('file-error');
  if (!label) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  const code = e instanceof AttnseqError ? e.code : '';
  const why = code === 'BAD_CHECKPOINT' ? 'it is not a model this page can read (a damaged or cut-off file, or not an attnseq .safetensors checkpoint)'
    : code === 'OUT_OF_MEMORY' || code === 'TOO_LONG' ? 'it is too large for this page' : 'the file could not be read';
  box.replaceChildren(
    h('p', { text: `“${label}” was not loaded: ${why}.${state.current?.model ? ` Still using ${state.current.title}.` : ''}` }),
    h('details', {}, h('summary', { text: 'Details' }), h('code', { text: errText(e) })));
  box.hidden = false;
  box.scrollIntoView({ block: 'center' });
}
