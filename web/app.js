// The demo page, "watch attention work, live": pick a shipped model (models/index.json) or load your
// own .safetensors (file picker or drag and drop), then play the decoder one engine step at a time;
// each step appends its attention row to the matrix as it is computed. Also: the step inspector
// (Q, K = V, scores, weights, context, next tokens), vanilla-vs-attention and score-function
// comparisons, beam search, what-if edits (forced prefix, moved attention) and exports.
// Uses only the public npm API (../wasm/attnseq.js); geometry and colours come from the pure views
// in ./views/. The training panel and the length study (./train/, ./study/) mount themselves at the end.
// Input checks: an empty input or a prefix the model cannot output disables the player; source words
// the model lacks (read as <unk>) are named under the input and marked in the matrix and the inspector.
import { loadModel, buildInfo, AttnseqError, alignmentToCSV, alignmentToJSON } from '../wasm/attnseq.js';
import { matrixFigure, alignmentSVG, rowLinks, colLinks, showToken, tokenLabels } from './views/alignment.js';
import { linksLayout, linksRow, linksPitch, LINKS_FIT } from './views/links.js';
import { oneHot, argmax } from './views/inspect.js';
import { fmt, safeName, joinTokens } from './views/format.js';
import { drawFigure, renderLinks, appendLinksRow } from './views/render.js';
import { h, download } from './views/dom.js';
import { tableHead, tableRow } from './views/table-view.js';
import { inspectorNodes, INSPECTOR_HINT } from './views/inspector-view.js';
import { modelFigure, beamItem, finalStateStrip, styleOrder } from './views/figure-view.js';
import { matrixWindow } from './views/matrix-canvas.js';
import { LONG_SOURCE } from './views/viewport.js';
import { calendarNote } from './dates.js';

const $ = (id) => document.getElementById(id);

// Playback speeds of the slider (1..8): milliseconds between decoder steps.
const SPEEDS = [
  [2000, '0.5 steps/s'], [1000, '1 step/s'], [700, '1.5 steps/s'], [500, '2 steps/s'],
  [250, '4 steps/s'], [125, '8 steps/s'], [50, '20 steps/s'], [16, 'as fast as possible'],
];

// ---------------------------------------------------------------------------------------------------
// State

const entries = new Map();   // id -> { id, title, file, task, examples, user, model, promise, error }
let manifest = [];           // models/index.json entries
let current = null;          // the selected entry
let loading = false;         // a model is being loaded for the picker
let loadSeq = 0;             // the latest load wins (a slow default must not override a user's file)
let pendingUser = 0;         // user loads in flight: the default model is then not auto-selected
let sourceEdited = false;    // the user typed the input (model changes keep it)
let sess = null;             // the decode being watched (see newSession)
let selected = null;         // the inspected step; null follows the latest
let loopId = 0;              // bumping it stops a play / run loop
let playing = false;
let compareSeq = 0, beamSeq = 0;

const errText = (e) => (e instanceof AttnseqError ? `${e.code}: ${e.message}` : String(e?.message ?? e));
const showError = (msg) => { $('error').textContent = msg; };
const clearError = () => { $('error').textContent = ''; };
// The next frame, then a task of its own: a step then never shares a task with the page's rendering.
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const speed = () => SPEEDS[Math.min(SPEEDS.length, Math.max(1, Number($('speed').value))) - 1];

// ---------------------------------------------------------------------------------------------------
// Models: the shipped list, loading, the picker, user files

async function loadManifest() {
  try {
    const res = await fetch(new URL('../models/index.json', import.meta.url));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    manifest = (await res.json()).models ?? [];
  } catch (e) {
    showError(`Could not read the list of shipped models (models/index.json: ${e.message}). You can still load your own checkpoint.`);
  }
  for (const m of manifest) {
    if (!m || typeof m.id !== 'string' || typeof m.file !== 'string') continue;
    entries.set(m.id, {
      id: m.id, title: m.title ?? m.id, file: m.file, task: m.task ?? null, examples: m.examples ?? [],
      user: false, model: null, promise: null, error: null,
    });
  }
  fillSelect();
  if (!current && pendingUser === 0) {
    const first = entries.get('en-ko') ?? [...entries.values()][0];
    if (first) selectModel(first.id);
    else $('model-info').textContent = 'No shipped models: load your own checkpoint.';
  }
}

/** The entry's model, loading it once; a failed load is retried the next time it is asked for. */
function ensureModel(entry) {
  if (entry.model) return Promise.resolve(entry.model);
  if (!entry.promise) {
    entry.promise = loadModel(new URL(`../models/${encodeURIComponent(entry.file)}`, import.meta.url)).then(
      (m) => { entry.model = m; entry.error = null; entry.promise = null; return m; },
      (e) => { entry.error = e; entry.promise = null; throw e; });
  }
  return entry.promise;
}

function fillSelect() {
  const sel = $('model');
  const shipped = [...entries.values()].filter((e) => !e.user), mine = [...entries.values()].filter((e) => e.user);
  const opt = (e) => h('option', { value: e.id, text: e.title + (e.error && !e.model ? ' — not available' : '') });
  const groups = [];
  if (shipped.length) groups.push(h('optgroup', { label: 'Shipped models' }, shipped.map(opt)));
  if (mine.length) groups.push(h('optgroup', { label: 'Your models' }, mine.map(opt)));
  sel.replaceChildren(...(groups.length ? groups : [h('option', { value: '', text: 'No models yet' })]));
  sel.disabled = entries.size === 0;
  if (current) sel.value = current.id;
}

function describe(entry, model) {
  const c = model.config;
  const att = c.style === 'none' ? 'vanilla (no attention)' : `${c.style} attention, ${c.score} score`;
  return `${entry.user ? entry.title : entry.file}: ${c.cell.toUpperCase()} ${att}${c.inputFeeding ? ', input feeding' : ''}` +
    `${c.bidirectional ? ', bidirectional encoder' : ''}, hidden ${c.hidden}, vocabulary ${c.srcVocabSize} → ${c.tgtVocabSize}` +
    `, ${c.tokenizer === 'ids' ? 'token ids' : c.tokenizer === 'mixed' ? `${c.srcTokenizer} → ${c.tgtTokenizer} tokens` : `${c.tokenizer} tokens`}, ${c.parameters.toLocaleString('en')} parameters.`;
}

function examplesFor(task) {
  if (!task) return [];
  return manifest.find((m) => m.task === task && m.examples?.length)?.examples ?? [];
}

function fillExamples(entry) {
  const ex = entry.examples.length ? entry.examples : examplesFor(entry.task);
  $('examples').replaceChildren(...ex.map((text) => h('button', {
    type: 'button', class: 'chip', text, 'aria-label': `Use example: ${text}`,
    onclick: () => { $('source').value = text; sourceEdited = false; onInputChanged(); },
  })));
  // A plausible prefix for the placeholder: the first output token of another example.
  let hint = 'target tokens';
  try {
    const m = entry.model;
    if (ex.length && m.config.tokenizer !== 'ids') hint = `e.g. ${m.translate(ex[1] ?? ex[0], { maxLength: 4 }).tgtTokens[0]}`;
  } catch { /* keep the generic hint */ }
  $('prefix').placeholder = hint;
  if (ex.length && (!sourceEdited || !$('source').value.trim())) {
    $('source').value = ex[0];
    sourceEdited = false;
  }
}

async function selectModel(id) {
  const entry = entries.get(id);
  if (!entry) return;
  const seq = ++loadSeq;
  const prevTask = current?.task ?? current?.model?.config.task ?? null;
  stopLoop();
  disposeSession();
  current = entry;
  $('model').value = id;
  loading = true;
  updateButtons();
  clearError();
  clearAux();
  $('model-info').textContent = `Loading ${entry.title}…`;
  try {
    const model = await ensureModel(entry);
    if (seq !== loadSeq) return;
    loading = false;
    if (!entry.task) entry.task = model.config.task;
    if (entry.task !== prevTask) $('prefix').value = '';
    $('model-info').textContent = describe(entry, model);
    fillExamples(entry);
    resetWatch();
  } catch (e) {
    if (seq !== loadSeq) return;
    loading = false;
    $('model-info').textContent = `${entry.title}: not available.`;
    showError(`${entry.title} could not be loaded — ${errText(e)}` +
      (entry.user ? '' : '. The file may still be training: try again in a minute, or pick another model.'));
    fillSelect();
  }
  updateButtons();
}

/**
 * Loads a checkpoint from bytes (or a Blob) as one of "Your models" and selects it. A second model
 * with the same label replaces the first. Resolves to its picker id; rejects (after showing the
 * message) when the checkpoint is refused, and the page keeps the model it had.
 */
async function loadUserBytes(source, label) {
  const seq = ++loadSeq;
  pendingUser++;
  stopLoop();
  loading = true;
  updateButtons();
  clearError();
  showFileError(null);
  $('model-info').textContent = `Loading ${label}…`;
  let model;
  try {
    const bytes = source instanceof Blob ? new Uint8Array(await source.arrayBuffer()) : source;
    model = await loadModel(bytes);
  } catch (e) {
    pendingUser--;
    if (seq === loadSeq) {
      loading = false;
      $('model-info').textContent = current?.model ? describe(current, current.model) : 'No model loaded.';
      $('file').value = '';   // the picker must not keep showing the refused file's name
      showFileError(label, e);
      updateButtons();
    }
    throw e;
  }
  pendingUser--;
  const id = `user:${label}`;
  const old = entries.get(id);
  if (old?.model) {
    if (sess?.model === old.model) disposeSession();
    old.model.dispose();
  }
  const task = model.config.task;
  entries.set(id, { id, title: label, file: null, task, examples: examplesFor(task), user: true, model, promise: null, error: null, source });
  fillSelect();
  if (seq === loadSeq) await selectModel(id);
  return id;
}

function loadUserFile(file) {
  loadUserBytes(file, file.name).catch(() => {});  // the message is on the page already
}

/**
 * A refused checkpoint, said plainly beside the file input (where the eye is, also on a phone), with
 * the engine's exact message one click away; null hides it.
 */
function showFileError(label, e) {
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
    h('p', { text: `“${label}” was not loaded: ${why}.${current?.model ? ` Still using ${current.title}.` : ''}` }),
    h('details', {}, h('summary', { text: 'Details' }), h('code', { text: errText(e) })));
  box.hidden = false;
  box.scrollIntoView({ block: 'nearest' });
}

// ---------------------------------------------------------------------------------------------------
// The decode session: encode once, then one engine step per row

function parseIds(text) {
  return text.split(/[\s,]+/).filter(Boolean).map(Number);
}
const sourceInput = (model, text) => (model.config.tokenizer === 'ids' ? parseIds(text) : text);
const sessionKey = () => `${current?.id}\u0000${$('source').value}\u0000${$('prefix').value.trim()}`;
const isVanilla = () => sess?.model.config.style === 'none';

/** Positions of the pieces the vocabulary lacks (read as <unk>); the unk token's own spelling is known. */
const unknownAt = (model, ids, tokens, vocab) => tokens.flatMap((t, i) => (ids[i] === model.config.unk && t !== vocab[model.config.unk] ? [i] : []));
const quoteList = (toks) => {
  const u = [...new Set(toks.map((t) => `“${showToken(t)}”`))];
  return u.length > 8 ? `${u.slice(0, 8).join(', ')}, …` : u.join(', ');
};

// The input as the current model sees it, worked out once per model, input and prefix: empty (nothing
// to decode), source tokens it does not know, prefix tokens it cannot output (the package refuses them).
let inputCheck = { key: null, model: null };
function checkInput() {
  const key = sessionKey(), m = current?.model ?? null;
  if (inputCheck.key === key && inputCheck.model === m) return inputCheck;
  const text = $('source').value, prefix = $('prefix').value.trim();
  const ids = m?.config.tokenizer === 'ids';
  const r = { key, model: m, empty: !text.trim() || (ids && parseIds(text).length === 0), tokens: [], unknown: [], badPrefix: [] };
  if (m && !ids) {
    try {
      if (!r.empty) {
        const t = m.tokenize(text);
        r.tokens = t.tokens;
        r.unknown = unknownAt(m, t.ids, t.tokens, m.srcVocab);
      }
      if (prefix) {
        const t = m.tokenize(prefix, 'target');
        r.badPrefix = unknownAt(m, t.ids, t.tokens, m.tgtVocab).map((i) => t.tokens[i]);
      }
    } catch { /* (e.g. a lone surrogate) the decode reports it */ }
  }
  inputCheck = r;
  return r;
}

/** The notes under the input and prefix fields, for checkInput()'s result. */
function renderInputNotes(r) {
  const c = r.model?.config;
  const unit = c?.srcTokenizer === 'char' ? 'characters' : 'words';  // the input is the source side
  const most = r.unknown.length * 2 > r.tokens.length;
  const note = r.model && r.empty ? 'Type an input or pick an example: Play, Step and Run need something to decode.'
    : !r.unknown.length ? ''
      : most ? `Most of this input (${r.unknown.length} of ${r.tokens.length} ${unit}) is unknown to this model: it reads ${quoteList(r.unknown.map((i) => r.tokens[i]))} as <unk>, so its output says little about what you typed. Try one of the examples.`
        : `Unknown to this model, so read as <unk> (marked ? in the alignment and the inspector): ${quoteList(r.unknown.map((i) => r.tokens[i]))}.`;
  const el = $('source-note');
  el.textContent = note;
  el.hidden = !note;
  el.classList.toggle('warn', !!r.unknown.length && most);
  const bad = r.badPrefix;
  $('prefix-error').textContent = bad.length ? `${quoteList(bad)} ${bad.length === 1 ? 'is not a token' : 'are not tokens'} this model can output, so ${bad.length === 1 ? 'it' : 'they'} cannot be forced. ` +
    `Use its target ${unit}${$('prefix').placeholder.startsWith('e.g.') ? ` (${$('prefix').placeholder})` : ''}.` : '';
  $('prefix-error').hidden = !bad.length;
}

// Unknown source tokens keep their spelling in the matrix and the inspector, but are marked: their
// weights belong to <unk>, not to the word.
function markUnknown(cells, index, title) {
  if (!sess?.unknown?.size) return;
  for (const th of cells) {
    if (!sess.unknown.has(index(th))) continue;
    th.classList.add('unk');
    if (title) th.title = 'unknown to this model: it read this as <unk>';   // (the matrix has its own tooltip)
    th.setAttribute('aria-label', `${th.getAttribute('aria-label') ?? th.textContent}, unknown to this model (read as <unk>)`);
  }
}

function disposeSession() {
  loopId++;
  if (sess) {
    sess.dec.dispose();
    sess.enc.dispose();
  }
  sess = null;
}

/** Encodes the input and starts a decoder; overrides: step index -> attention row (what-if edits). */
function newSession(overrides = new Map()) {
  const model = current.model;
  const text = $('source').value;
  const prefix = $('prefix').value.trim();
  disposeSession();
  const enc = model.encode(sourceInput(model, text));
  let dec;
  try {
    dec = model.decoder(enc, prefix ? { topk: 5, prefix: sourceInput(model, prefix) } : { topk: 5 });
  } catch (e) {
    enc.dispose();
    throw e;
  }
  sess = { key: sessionKey(), model, entry: current, enc, dec, memory: enc.memory(), src: enc.tokens, srcLabels: tokenLabels(enc.tokens), text, prefix, steps: [], overrides, done: false };
  sess.unknown = new Set(model.config.tokenizer === 'ids' ? [] : unknownAt(model, enc.ids, enc.tokens, model.srcVocab));
  selected = null;
  $('watch').classList.toggle('vanilla', isVanilla());
  buildTable();
  markUnknown($('alignment').querySelectorAll('thead th[data-col]'), (th) => Number(th.dataset.col));
  renderLinksView();
  renderInspector();
  setWatchState('ready', `Encoded ${enc.length} source token${enc.length === 1 ? '' : 's'}. Press ▶ Play or Step.`);
  updateOutput();
  updateButtons();
}

/** A session for the current input, re-encoding when the model, input or prefix changed. */
function ensureSession() {
  if (!current?.model || loading) return false;
  if (sess && sess.key === sessionKey()) return true;
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
function stepOnce() {
  if (!ensureSession() || sess.done) return false;
  const k = sess.steps.length;
  const override = sess.overrides.get(k);
  let r;
  try {
    r = sess.dec.step(override ? { attention: override } : {});
  } catch (e) {
    showError(errText(e));
    finish('error');
    renderInspector();
    return false;
  }
  r.overridden = !!override;
  sess.steps.push(r);
  const ended = r.done || sess.dec.done;
  sess.done = ended;
  appendRow(r, k);
  updateOutput();
  renderLinksView(k);
  renderInspectorPaced();
  if (ended) {
    finish(r.done ? 'eos' : 'max');
    return false;
  }
  setWatchState(playing ? 'playing' : 'ready', `Step ${k + 1}: “${r.text}”.`);
  updateButtons();
  return true;
}

function finish(why) {
  sess.done = true;
  const n = sess.steps.length;
  const msg = why === 'eos' ? `Done: ${n} step${n === 1 ? '' : 's'}, ending with the end-of-sentence token.`
    : why === 'max' ? `Stopped at the maximum length (${n} steps) without an end-of-sentence token.` : 'Stopped by an error.';
  setWatchState('done', msg);
  updateButtons();
  updateWhatIfNote();
  setTimeout(() => { runCompare(); runBeam(); }, 0);
}

async function loop(mode) {
  const id = ++loopId;
  playing = mode === 'play';
  updatePlayButton();
  while (id === loopId) {
    if (!stepOnce()) break;
    await (mode === 'run' ? frame() : pace(performance.now(), id));
  }
  if (id === loopId) {
    playing = false;
    updatePlayButton();
  }
}

// Waits until the speed's delay has passed since `since` (or loop `id` is stopped). A speed change
// wakes it (rewake) to wait only for what the new speed leaves: going faster does not sit out the old delay.
let rewake = null;
async function pace(since, id) {
  for (let left = speed()[0]; left > 0 && id === loopId; left = since + speed()[0] - performance.now()) {
    await new Promise((r) => { rewake = r; setTimeout(r, left); });
  }
}

function stopLoop() {
  loopId++;
  playing = false;
  updatePlayButton();
}

function play() {
  if (playing) return stopLoop();
  if (sess && sess.done && sess.key === sessionKey()) {
    try { newSession(sess.overrides); } catch (e) { return showError(errText(e)); }
  }
  if (!ensureSession()) return;
  loop('play');
}

function restart() {
  const was = playing;
  stopLoop();
  if (!current?.model) return;
  try {
    clearError();
    newSession(sess && sess.key === sessionKey() ? sess.overrides : new Map());
  } catch (e) {
    return showError(errText(e));
  }
  if (was) loop('play');
}

function onInputChanged() {
  stopLoop();
  $('whatif-note').hidden = true;
  updateButtons();
  if (sess && sess.key !== sessionKey()) setWatchState('idle', checkInput().empty ? 'No input: type one to decode it.' : 'The input changed: press ▶ Play or Step to decode it.');
}

// ---------------------------------------------------------------------------------------------------
// What if: move a step's attention onto one source token and re-decode from there

function whatIf(k, col) {
  if (!sess || k >= sess.steps.length || sess.key !== sessionKey() || isVanilla()) return;
  const fromLook = !!document.activeElement?.closest('#inspector-body .look');  // pressed ◎ (keyboard or pointer)
  const overrides = new Map([...sess.overrides].filter(([j]) => j < k));
  overrides.set(k, oneHot(sess.src.length, col));
  stopLoop();
  try {
    newSession(overrides);
  } catch (e) {
    return showError(errText(e));
  }
  $('whatif-text').textContent = `What if step ${k + 1} had looked only at “${sess.srcLabels[col]}”? Re-decoding from there…`;
  $('whatif-note').hidden = false;
  for (let j = 0; j <= k; j++) if (!stepOnce()) break;
  selected = k;
  renderInspector();
  if (fromLook) refocus([$('inspector-body').querySelector(`tr[data-i="${col}"] .look`)]);
  if (!sess.done) loop('play');
}

function updateWhatIfNote() {
  if (!sess || sess.overrides.size === 0) {
    $('whatif-note').hidden = true;
    return;
  }
  let before = '';
  try {
    before = sess.model.translate(sourceInput(sess.model, sess.text), sess.prefix ? { prefix: sourceInput(sess.model, sess.prefix) } : {}).text;
  } catch { /* the note then omits it */ }
  const edits = [...sess.overrides].map(([k, row]) => `step ${k + 1} → “${sess.srcLabels[argmax(row)]}”`).join(', ');
  $('whatif-text').textContent = `With your edit${sess.overrides.size > 1 ? 's' : ''} (${edits}) the output is “${outputText()}”; ` +
    `without ${sess.overrides.size > 1 ? 'them' : 'it'} the model says “${before}”.`;
  $('whatif-note').hidden = false;
}

function clearWhatIfs() {
  if (!sess) return;
  stopLoop();
  try {
    newSession();
  } catch (e) {
    return showError(errText(e));
  }
  $('whatif-note').hidden = true;
  loop('run');
}

// ---------------------------------------------------------------------------------------------------
// The alignment matrix (an HTML table: one header row of source tokens, one row per step)

// A long source (over LONG_SOURCE tokens) is drawn in a canvas window instead of the table: a table
// of 300 columns costs the browser seconds of layout and paint per row, the window only its view.
let liveWin = null;
function buildTable() {
  const table = $('alignment');
  liveWin?.el.remove();
  liveWin = null;
  if (sess.src.length > LONG_SOURCE) {
    table.replaceChildren();
    liveWin = matrixWindow({ cell: 18, font: 12, vanilla: isVanilla(), cls: 'live', label: table.getAttribute('aria-label') });
    setupWindow(liveWin);
    table.after(liveWin.el);
    liveWin.set(liveAlignment());
    return;
  }
  table.replaceChildren(tableHead(sess.src, isVanilla()), h('tbody'));
  table.classList.toggle('compact', sess.src.length > 10);  // long (character) sources: narrower cells
}

// The window's rows: the alignment so far, with the table's marks for forced and moved rows.
function liveAlignment() {
  const a = currentAlignment();
  return { ...a, tgtTokens: sess.steps.map((r) => `${r.text}${r.forced ? '⇢' : ''}${r.overridden ? '✎' : ''}`) };
}

function appendRow(r, k) {
  if (liveWin) {
    // Following the latest step, the window keeps the new row and the column it looks at in view.
    liveWin.set(liveAlignment(), selected === null ? { row: k, col: isVanilla() ? sess.src.length : argmax(r.attention) } : null);
    return markSelectedRow();
  }
  const tbody = $('alignment').tBodies[0];
  for (const old of tbody.querySelectorAll('tr.fresh')) old.classList.remove('fresh');
  tbody.append(tableRow(r, k, sess.srcLabels, isVanilla(), selectStep));
  markSelectedRow();
}

// The session's weights so far, row-major. The buffer grows by the rows added since the last call
// (doubling its capacity), so hovering and drawing a long alignment never copies all of it again.
function currentAlignment() {
  const rows = sess.steps.length, cols = sess.src.length;
  if (!sess.att || sess.att.length < rows * cols) {
    const grown = new Float32Array(Math.max(rows * cols, 2 * (sess.att?.length ?? 0), 16 * cols));
    if (sess.att) grown.set(sess.att.subarray(0, sess.attRows * cols));
    sess.att = grown;
  }
  for (let k = sess.attRows ?? 0; k < rows; k++) sess.att.set(sess.steps[k].attention, k * cols);
  sess.attRows = rows;
  return { srcTokens: sess.src, tgtTokens: sess.steps.map((r) => r.text), attention: sess.att.subarray(0, rows * cols), rows, cols };
}

function outputText() {
  if (!sess) return '';
  const c = sess.model.config;
  const toks = sess.steps.filter((r) => ![c.eos, c.bos, c.pad].includes(r.token)).map((r) => r.text);
  return joinTokens(toks, c.tgtTokenizer);  // the output is the target side
}

function updateOutput() {
  $('output').textContent = outputText();
  // A finished dates output that names no real day (2013-02-30) is certainly wrong: say so beside it.
  const note = sess ? calendarNote(sess.entry?.task ?? sess.model.metadata?.task, outputText(), sess.done) : '';
  $('date-note').textContent = note;
  $('date-note').hidden = !note;
}

function setWatchState(state, msg) {
  $('watch').dataset.state = state;
  if (msg) $('watch-status').textContent = msg;
}

function resetWatch() {
  $('alignment').replaceChildren();
  liveWin?.el.remove();
  liveWin = null;
  $('links').replaceChildren();
  $('output').textContent = '';
  $('date-note').hidden = true;
  $('whatif-note').hidden = true;
  renderInspector();
  setWatchState('idle', current?.model ? 'Press ▶ Play to watch the decoder, or Step through it.' : 'Pick a model.');
}

// Hover: a cell shows its weight and highlights its row and column; a row (output token) or a source
// token highlights its links in the matrix and in the links view.
function highlight(target) {
  if (liveWin) highlightWindow(target);
  const table = $('alignment');
  for (const el of table.querySelectorAll('.hl, .linked')) el.classList.remove('hl', 'linked');
  const links = $('links').querySelector('svg');
  links?.classList.toggle('focus', !!target);
  for (const el of $('links').querySelectorAll('.on')) el.classList.remove('on');
  if (!target || !sess) return;
  const a = currentAlignment();
  const { row, col } = target;
  if (row !== undefined) {
    table.querySelector(`tbody tr[data-row="${row}"]`)?.classList.add('hl');
    if (!isVanilla()) {
      for (const l of rowLinks(a.attention, a.rows, a.cols, row, 0.1)) {
        table.querySelector(`thead th[data-col="${l.col}"]`)?.classList.add('linked');
        table.querySelector(`td[data-row="${row}"][data-col="${l.col}"]`)?.classList.add('linked');
      }
    }
    for (const el of $('links').querySelectorAll(`[data-row="${row}"]`)) el.classList.add('on');
  }
  if (col !== undefined) {
    table.querySelector(`thead th[data-col="${col}"]`)?.classList.add('hl');
    for (const td of table.querySelectorAll(`td[data-col="${col}"]`)) td.classList.add('hl');
    if (row === undefined && !isVanilla()) {
      for (const l of colLinks(a.attention, a.rows, a.cols, col, 0.1)) {
        table.querySelector(`tbody tr[data-row="${l.row}"] th`)?.classList.add('linked');
        table.querySelector(`td[data-row="${l.row}"][data-col="${col}"]`)?.classList.add('linked');
      }
    }
    for (const el of $('links').querySelectorAll(`[data-col="${col}"]`)) if (row === undefined || el.dataset.row === undefined || el.dataset.row === String(row)) el.classList.add('on');
  }
}

function showTip(el, text) {
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
const hideTip = () => { $('tip').hidden = true; };

function rowSummary(row) {
  const a = currentAlignment();
  const r = sess.steps[row];
  if (isVanilla()) return `“${r.text}”: no attention; the decoder only had h_T`;
  const l = rowLinks(a.attention, a.rows, a.cols, row, 0.1).map((x) => `${sess.srcLabels[x.col]} ${fmt(x.weight, 3)}`);
  return `“${r.text}” looks at: ${l.join(', ')}`;
}

function colSummary(col) {
  const a = currentAlignment();
  if (isVanilla()) return `“${sess.srcLabels[col]}”: the vanilla decoder never looks at it`;
  const l = colLinks(a.attention, a.rows, a.cols, col, 0.1).map((x) => `${sess.steps[x.row].text} ${fmt(x.weight, 3)}`);
  return l.length ? `“${sess.srcLabels[col]}” is looked at by: ${l.join(', ')}` : `“${sess.srcLabels[col]}”: no output token puts 0.1 of its weight here yet`;
}

function hoverAt(el) {
  if (!sess || !el) return;
  const td = el.closest('td'), th = el.closest('th');
  if (td && td.dataset.col !== undefined) {
    const row = Number(td.dataset.row), col = Number(td.dataset.col);
    highlight({ row, col });
    const w = Number(td.dataset.weight);
    showTip(td, isVanilla() ? `${sess.steps[row].text} ← ${sess.srcLabels[col]}: not visible (no attention)` : `${sess.steps[row].text} ← ${sess.srcLabels[col]}: w = ${fmt(w, 4)}`);
  } else if (th && th.closest('tbody')) {
    const row = Number(th.parentElement.dataset.row);
    highlight({ row });
    showTip(th, rowSummary(row));
  } else if (th && th.dataset.col !== undefined) {
    const col = Number(th.dataset.col);
    highlight({ col });
    showTip(th, colSummary(col));
  } else {
    highlight(null);
    hideTip();
  }
}

// Dragging a cell sideways (mouse) moves that step's attention onto the column it is dropped on.
let drag = null;
function setupTable() {
  const table = $('alignment');
  table.addEventListener('pointerover', (e) => {
    if (drag) {
      const td = e.target.closest('td');
      for (const el of table.querySelectorAll('.drop')) el.classList.remove('drop');
      if (td && Number(td.dataset.row) === drag.row && td.dataset.col !== undefined) td.classList.add('drop');
      return;
    }
    hoverAt(e.target);
  });
  table.addEventListener('pointerleave', () => { if (!drag) { highlight(null); hideTip(); } });
  table.addEventListener('focusin', (e) => hoverAt(e.target));
  table.addEventListener('focusout', () => { highlight(null); hideTip(); });
  table.addEventListener('pointerdown', (e) => {
    const td = e.target.closest('td');
    if (!td || e.button !== 0 || td.dataset.col === undefined || !sess) return;
    drag = { row: Number(td.dataset.row), col: Number(td.dataset.col) };
    if (e.pointerType === 'mouse' && !isVanilla()) {
      e.preventDefault();
      table.classList.add('dragging');
      showTip(td, `Drag along row ${drag.row + 1} and drop on a source token: the step will look only there`);
    }
  });
  document.addEventListener('pointerup', (e) => {
    if (!drag) return;
    const from = drag;
    drag = null;
    table.classList.remove('dragging');
    for (const el of table.querySelectorAll('.drop')) el.classList.remove('drop');
    hideTip();
    const td = e.target instanceof Element ? e.target.closest('#alignment td') : null;
    if (!td || td.dataset.col === undefined) return;
    const row = Number(td.dataset.row), col = Number(td.dataset.col);
    if (row === from.row && col !== from.col && e.pointerType === 'mouse') whatIf(row, col);
    else if (row === from.row) selectStep(row);
  });
}

// The canvas window's highlights: the hovered row or column and the cells it links (as in the table).
function highlightWindow(target) {
  if (!target || !sess || isVanilla()) return liveWin.highlight(target && sess ? target : null);
  const a = currentAlignment();
  const { row, col } = target;
  const cells = row !== undefined
    ? rowLinks(a.attention, a.rows, a.cols, row, 0.1).map((l) => ({ row, col: l.col }))
    : colLinks(a.attention, a.rows, a.cols, col, 0.1).map((l) => ({ row: l.row, col }));
  liveWin.highlight({ row, col, cells });
}

// The window's pointer and keyboard use, as the table's: hover for tips and links, click a row to
// inspect it, drag a cell sideways (mouse) to move that step's attention; arrows move a cursor.
function setupWindow(win) {
  const rectOf = (at) => ({ getBoundingClientRect: () => win.cellRect(at.row, at.col) });
  const show = (at) => {
    if (!sess || !at) {
      highlight(null);
      return hideTip();
    }
    const { row, col } = at;
    if (row !== undefined && col !== undefined) {
      highlight({ row, col });
      const text = sess.steps[row].text, name = sess.srcLabels[col];
      showTip(rectOf(at), col >= sess.src.length ? `${text}: decoded from h_T alone`
        : isVanilla() ? `${text} ← ${name}: not visible (no attention)` : `${text} ← ${name}: w = ${fmt(sess.steps[row].attention[col], 4)}`);
    } else if (row !== undefined) {
      highlight({ row });
      showTip(rectOf(at), rowSummary(row));
    } else if (col < sess.src.length) {
      highlight({ col });
      showTip(rectOf(at), colSummary(col));
    } else {
      highlight(null);
      hideTip();
    }
  };
  let down = null, cursor = null;
  win.el.addEventListener('pointermove', (e) => {
    const at = win.hit(e.clientX, e.clientY);
    if (down && at?.row === down.row && at.col !== undefined && e.pointerType === 'mouse' && !isVanilla()) {
      liveWin.highlight({ row: down.row, col: at.col, cells: [{ row: down.row, col: at.col }] });
      return showTip(rectOf(at), `Drag along row ${down.row + 1} and drop on a source token: the step will look only there`);
    }
    show(at);
  });
  win.el.addEventListener('pointerleave', () => { if (!down) show(null); });
  win.el.addEventListener('pointerdown', (e) => {
    const at = win.hit(e.clientX, e.clientY);
    if (e.button !== 0 || at?.row === undefined) return;
    down = at;
    win.el.setPointerCapture(e.pointerId);   // (the release comes here even off the window)
    if (e.pointerType === 'mouse' && at.col !== undefined) e.preventDefault();
  });
  win.el.addEventListener('pointercancel', () => { down = null; });   // (a touch that became a scroll)
  win.el.addEventListener('pointerup', (e) => {
    if (!down) return;
    const from = down;
    down = null;
    const at = win.hit(e.clientX, e.clientY);
    if (at?.row !== from.row) return show(null);
    if (at.col !== undefined && from.col !== undefined && at.col !== from.col && at.col < sess.src.length && e.pointerType === 'mouse') whatIf(at.row, at.col);
    else selectStep(at.row);
  });
  win.el.addEventListener('keydown', (e) => {
    const f = win.frame();
    if (!sess || !f || f.rows === 0) return;
    cursor ??= { row: selected ?? f.rows - 1, col: 0 };
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (moves[e.key]) {
      e.preventDefault();
      cursor = { row: Math.min(f.rows - 1, Math.max(0, cursor.row + moves[e.key][0])), col: Math.min(sess.src.length - 1, Math.max(0, cursor.col + moves[e.key][1])) };
      win.reveal(cursor.row, cursor.col);
      requestAnimationFrame(() => show(cursor));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      selectStep(cursor.row);
    }
  });
  win.el.addEventListener('focus', () => {
    const f = win.frame();
    if (sess && f?.rows && win.el.matches(':focus-visible')) show((cursor ??= { row: selected ?? f.rows - 1, col: 0 }));
  });
  win.el.addEventListener('blur', () => show(null));
}

// ---------------------------------------------------------------------------------------------------
// Links view

// k: the row just added. A long alignment (over LINKS_FIT tokens a side) has a fixed pitch (set by
// the source labels, so that it never changes during a decode), and its new row is appended to the
// drawing; a short one is spread over the box and redrawn (it is small).
function renderLinksView(k) {
  const box = $('links');
  if (!sess || isVanilla()) return box.replaceChildren();  // (hidden for a vanilla model: no links to draw)
  const a = currentAlignment();
  const shown = sess.links;
  const tgt = a.tgtTokens.map(showToken);
  if (shown?.lay.pitch && k === shown.rows && k + 1 === a.rows && box.firstChild === shown.svg) {
    appendLinksRow(shown.svg, linksRow({ ...a, tgtTokens: tgt }, k, shown.lay));
    shown.rows = a.rows;
    return;
  }
  const src = a.srcTokens.map(showToken);
  const wide = Math.max(a.rows, a.cols) > LINKS_FIT;
  const lay = linksLayout({ ...a, srcTokens: src, tgtTokens: tgt },
    wide ? { pitch: linksPitch(src), height: 130 } : { width: Math.max(360, 40 * Math.max(a.rows, a.cols)), height: 130 });
  const svg = renderLinks(lay);
  sess.links = { svg, lay, rows: a.rows };
  svg.addEventListener('pointerover', (e) => {
    const t = e.target.closest('[data-row], [data-col]');
    if (!t) return highlight(null);
    if (t.tagName === 'line') highlight({ row: Number(t.dataset.row), col: Number(t.dataset.col) });
    else if (t.dataset.row !== undefined) highlight({ row: Number(t.dataset.row) });
    else highlight({ col: Number(t.dataset.col) });
  });
  svg.addEventListener('pointerleave', () => highlight(null));
  box.replaceChildren(svg);
}

// ---------------------------------------------------------------------------------------------------
// Step inspector

function selectStep(k) {
  if (!sess || k < 0 || k >= sess.steps.length) return;
  selected = k;
  renderInspector();
}

function markSelectedRow() {
  const k = sess ? (selected ?? sess.steps.length - 1) : -1;
  if (liveWin) return liveWin.select(k);
  for (const tr of $('alignment').querySelectorAll('tbody tr')) tr.classList.toggle('selected', Number(tr.dataset.row) === k);
}

// A long source's inspector is the heaviest thing drawn per step: while steps come faster than ten a
// second (Run to end: one per frame) it is redrawn at most every 100 ms, and at once after the last.
let inspectedAt = 0, inspectTimer = 0;
function renderInspectorPaced() {
  clearTimeout(inspectTimer);
  const wait = inspectedAt + 100 - performance.now();
  if (!sess || sess.src.length <= LONG_SOURCE || sess.done || wait <= 0) {
    inspectedAt = performance.now();
    return renderInspector();
  }
  inspectTimer = setTimeout(renderInspectorPaced, wait);
}

let shownStep = null;   // the StepResult the inspector body shows

// Rebuilding the inspector (or disabling ◀ / ▶) must not drop keyboard focus to <body>: a focused ◎
// moves to the ◎ of the same source token in the new body, a disabled button to its neighbour.
function renderInspector() {
  const had = document.activeElement;
  const look = $('inspector-body').contains(had) ? had.closest('tr[data-i]')?.dataset.i : undefined;
  drawInspector();
  markUnknown($('inspector-body').querySelectorAll('tr[data-i] > th'), (th) => Number(th.parentElement.dataset.i), true);
  if (had && had !== document.body && (!had.isConnected || had.disabled)) {
    refocus([look === undefined ? null : $('inspector-body').querySelector(`tr[data-i="${look}"] .look`),
      $('next-step'), $('prev-step'), $('follow'), $('restart'), $('play'), $('source')]);
  }
}

/** Focuses the first usable element of the list (without scrolling: each is near the lost focus). */
function refocus(list) {
  list.find((el) => el?.isConnected && !el.disabled)?.focus({ preventScroll: true });
}

function drawInspector() {
  const body = $('inspector-body');
  const n = sess?.steps.length ?? 0;
  $('prev-step').disabled = $('next-step').disabled = $('follow').disabled = n === 0;
  $('follow').setAttribute('aria-pressed', String(selected === null));
  if (!sess || n === 0) {
    $('inspector-title').textContent = 'No step yet';
    body.dataset.step = '';
    shownStep = null;
    body.replaceChildren(h('p', { class: 'hint', text: INSPECTOR_HINT }));
    markSelectedRow();
    return;
  }
  const k = Math.min(selected ?? n - 1, n - 1);
  $('prev-step').disabled = k === 0;
  $('next-step').disabled = k >= n - 1;
  const r = sess.steps[k];
  $('inspector-title').textContent = `Step ${k + 1} of ${n}${sess.done ? '' : '…'}: “${r.text}”`;
  body.dataset.step = String(k);
  // A step already on show (an inspected step while others are decoded) is not rebuilt.
  if (shownStep === r && body.firstChild) return markSelectedRow();
  shownStep = r;
  body.replaceChildren(...inspectorNodes({ step: r, index: k, memory: sess.memory, config: sess.model.config, srcTokens: sess.src, onLook: whatIf }));
  markSelectedRow();
}

// ---------------------------------------------------------------------------------------------------
// Compare: vanilla vs attention, and every score function / style of the same task

function auxSource() {
  return sess ? { text: sess.text, prefix: sess.prefix } : { text: $('source').value, prefix: $('prefix').value.trim() };
}

function clearAux() {
  compareSeq++;
  beamSeq++;
  $('compare-vanilla').replaceChildren();
  $('compare-scores').replaceChildren();
  $('compare-errors').replaceChildren();
  $('beam-results').replaceChildren();
  $('compare').dataset.state = 'idle';
  $('beam').dataset.state = 'idle';
}

async function runCompare() {
  const entry = current;
  if (!entry?.model) return;
  const seq = ++compareSeq;
  const { text } = auxSource();
  const task = entry.model.config.task ?? entry.task;
  const van = $('compare-vanilla'), sc = $('compare-scores'), errs = $('compare-errors');
  $('compare').dataset.state = 'running';
  const sibs = [...entries.values()].filter((e) => !e.user && e.task && e.task === task && e !== entry);
  const all = [entry, ...sibs];
  const settled = await Promise.allSettled(all.map((e) => ensureModel(e)));
  if (seq !== compareSeq) return;
  fillSelect();
  const ok = [], failed = [];
  for (const [i, e] of all.entries()) {
    if (settled[i].status !== 'fulfilled') {
      failed.push([e, settled[i].reason]);
      continue;
    }
    const m = settled[i].value;
    try {
      // In the engine Worker, like beam search: a long input's decodes would add up to a freeze here.
      const r = await engineTranslate(e, sourceInput(m, text), {}, m.config.style === 'none');
      ok.push({ e, m, r });
    } catch (err) {
      failed.push([e, err]);
    }
    if (seq !== compareSeq) return;
  }
  errs.replaceChildren(...failed.map(([e, err]) => h('li', { text: `${e.title}: could not ${err?.code === 'BAD_INPUT' ? 'translate this input' : 'be loaded'} — ${codeText(err)}` })));
  const vanilla = ok.find((x) => x.m.config.style === 'none');
  const attn = ok.filter((x) => x.m.config.style !== 'none').sort((a, b) => (a.e === entry ? -1 : b.e === entry ? 1 : styleOrder(a.m.config) - styleOrder(b.m.config)));
  const best = attn.find((x) => x.e === entry) ?? attn.find((x) => x.m.config.style === 'luong' && x.m.config.score === 'dot') ?? attn[0];
  if (vanilla && best) {
    const hT = vanilla.r.finalState ?? null;
    const hTStrip = hT ? finalStateStrip(hT) : null;
    van.replaceChildren(
      modelFigure(vanilla.e, vanilla.m.config, vanilla.r, { vanilla: true, isCurrent: vanilla.e === entry, extra: hTStrip }),
      modelFigure(best.e, best.m.config, best.r, { isCurrent: best.e === entry }));
  } else {
    van.replaceChildren(h('p', { class: 'hint', text: `No vanilla and attention pair is available for the task “${task ?? 'unknown'}”${all.length === 1 ? ' (only the selected model)' : ''}. Pick a model whose task has a vanilla twin in the list (English → Korean) to see the pair.` }));
  }
  sc.replaceChildren(...(attn.length ? attn.map((x) => modelFigure(x.e, x.m.config, x.r, { isCurrent: x.e === entry }))
    : [h('p', { class: 'hint', text: 'No attention models for this task.' })]));
  $('compare').dataset.state = 'done';
}

// ---------------------------------------------------------------------------------------------------
// Beam search

function runBeam() {
  const entry = current;
  if (!entry?.model) return;
  const seq = ++beamSeq;
  const list = $('beam-results');
  const beam = Math.min(16, Math.max(1, Math.round(Number($('beam-size').value)) || 1));
  $('beam-size').value = String(beam);
  const { text, prefix } = auxSource();
  const m = entry.model;
  const vanilla = m.config.style === 'none';
  $('beam').dataset.state = 'running';
  engineTranslate(entry, sourceInput(m, text), prefix ? { beam, prefix: sourceInput(m, prefix) } : { beam }).then((r) => {
    if (seq !== beamSeq) return;
    list.replaceChildren(...r.hypotheses.map((hyp, i) => beamItem(hyp, i, vanilla)));
    $('beam').dataset.state = 'done';
  }, (e) => {
    if (seq !== beamSeq) return;
    list.replaceChildren(h('li', { class: 'error', text: codeText(e) }));
    $('beam').dataset.state = 'done';
  });
}

// Whole translations for the compare and beam views run in the engine Worker (web/worker.js): a
// wide beam over a long input takes the engine longer than a frame (beam 16 over 300 characters:
// over 100 ms). The Worker loads the model itself: a shipped one from its URL, a user's from the
// bytes it was loaded from. Without a Worker they run here. finalState: also return h_T.
let engineClient = null;
async function engineTranslate(entry, input, options, finalState = false) {
  const m = entry.model;
  const source = entry.file ? { url: new URL(`../models/${encodeURIComponent(entry.file)}`, import.meta.url).href }
    : entry.source ? { bytes: entry.source } : null;
  if (source) {
    try {
      engineClient ??= new (await import('./train/client.js')).EngineClient();
      return await engineClient.call('translate', { source, input, options, finalState });
    } catch (e) {
      if (e?.code !== 'WORKER' && e?.code !== 'TERMINATED' && !(e instanceof TypeError)) throw e;
    }
  }
  const r = m.translate(input, options);
  if (finalState) {
    const enc = m.encode(input);
    r.finalState = enc.memory().finalState;
    enc.dispose();
  }
  return r;
}
const codeText = (e) => (e instanceof AttnseqError || !e?.code ? errText(e) : `${e.code}: ${e.message}`);

// ---------------------------------------------------------------------------------------------------
// Exports: PNG (canvas), SVG, CSV and JSON (the package's own helpers), downloaded through blob: URLs

function exportName(ext) {
  return `attnseq-${safeName(sess.entry.id.replace(/^user:/, ''))}-${safeName(sess.text).slice(0, 30)}.${ext}`;
}

function exportFigureOpts() {
  return { cell: 34, font: 14, vanilla: isVanilla(), legend: true, title: [sess.entry.title, `${sess.text} → ${outputText()}`] };
}

function exportAs(kind) {
  if (!sess || sess.steps.length === 0) return;
  const a = currentAlignment();
  if (kind === 'csv') return download(new Blob([alignmentToCSV(a)], { type: 'text/csv' }), exportName('csv'));
  if (kind === 'json') return download(new Blob([alignmentToJSON(a)], { type: 'application/json' }), exportName('json'));
  if (kind === 'svg') return download(new Blob([alignmentSVG(a, exportFigureOpts())], { type: 'image/svg+xml' }), exportName('svg'));
  const fig = matrixFigure(a, exportFigureOpts());
  const canvas = document.createElement('canvas');
  canvas.width = fig.width * 2;
  canvas.height = fig.height * 2;
  drawFigure(canvas.getContext('2d'), fig, { scale: 2 });
  canvas.toBlob((blob) => (blob ? download(blob, exportName('png')) : showError('PNG export failed')), 'image/png');
}

// ---------------------------------------------------------------------------------------------------
// Buttons and wiring

function updatePlayButton() {
  const b = $('play');
  b.textContent = playing ? '❚❚ Pause' : '▶ Play';   // the name says what a press does next
  if (playing) setWatchState('playing');
  else if ($('watch').dataset.state === 'playing') setWatchState('ready', `Paused after step ${sess?.steps.length ?? 0}. Press ▶ Play or Step to go on.`);
}

let shownCheck = null;   // the checkInput() result the notes show
function updateButtons() {
  const had = document.activeElement;
  const check = checkInput();
  if (check !== shownCheck) renderInputNotes((shownCheck = check));
  // Nothing to decode (an empty input) or a prefix the package would refuse: the player waits.
  const ready = !!current?.model && !loading;
  const decodable = ready && !check.empty && check.badPrefix.length === 0;
  const finished = !!sess && sess.done && sess.key === sessionKey();
  $('encode').disabled = !decodable;
  $('play').disabled = !decodable;
  $('step').disabled = !decodable || finished;
  $('run').disabled = !decodable || finished;
  $('restart').disabled = !decodable || !sess;
  $('compare-run').disabled = !ready;
  $('beam-run').disabled = !ready;
  const rows = sess?.steps.length ?? 0;
  for (const id of ['export-png', 'export-svg', 'export-csv', 'export-json']) $(id).disabled = rows === 0;
  // Step or Run reaching the end disables the button that has the focus: hand it on instead of to <body>.
  if (had?.disabled && had.closest('.player')) refocus([$('restart'), $('play'), $('source')]);
}

function wire() {
  $('model').addEventListener('change', () => { showFileError(null); selectModel($('model').value); });
  $('file').addEventListener('change', () => {
    const f = $('file').files[0];
    if (f) loadUserFile(f);
  });
  $('encode').addEventListener('click', () => {
    stopLoop();
    if (!current?.model) return;
    try {
      clearError();
      $('whatif-note').hidden = true;
      newSession();
    } catch (e) {
      showError(errText(e));
    }
  });
  $('play').addEventListener('click', play);
  $('step').addEventListener('click', () => { stopLoop(); stepOnce(); });
  $('run').addEventListener('click', () => { stopLoop(); if (ensureSession()) loop('run'); });
  $('restart').addEventListener('click', restart);
  const speedOut = () => { $('speed-out').textContent = speed()[1]; };
  $('speed').addEventListener('input', () => { speedOut(); rewake?.(); });
  speedOut();
  $('source').addEventListener('input', () => { sourceEdited = true; onInputChanged(); });
  $('prefix').addEventListener('input', onInputChanged);
  for (const id of ['source', 'prefix']) {
    $(id).addEventListener('keydown', (e) => { if (e.key === 'Enter' && !$('play').disabled) { stopLoop(); play(); } });
  }
  $('prev-step').addEventListener('click', () => sess && selectStep((selected ?? sess.steps.length - 1) - 1));
  $('next-step').addEventListener('click', () => sess && selectStep((selected ?? sess.steps.length - 1) + 1));
  $('follow').addEventListener('click', () => { selected = null; renderInspector(); });
  $('whatif-clear').addEventListener('click', clearWhatIfs);
  $('compare-run').addEventListener('click', runCompare);
  $('beam-run').addEventListener('click', runBeam);
  $('beam-size').addEventListener('keydown', (e) => { if (e.key === 'Enter') runBeam(); });
  for (const kind of ['png', 'svg', 'csv', 'json']) $(`export-${kind}`).addEventListener('click', () => exportAs(kind));
  setupTable();

  // Drag and drop a checkpoint anywhere on the page.
  const hasFiles = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types ?? []).includes('Files');
  let depth = 0;
  document.addEventListener('dragenter', (e) => { if (hasFiles(e)) { depth++; $('drop-overlay').hidden = false; } });
  document.addEventListener('dragleave', (e) => { if (hasFiles(e) && --depth <= 0) { depth = 0; $('drop-overlay').hidden = true; } });
  document.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
  document.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    $('drop-overlay').hidden = true;
    const f = e.dataTransfer.files[0];
    if (f) loadUserFile(f);
  });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') { hideTip(); highlight(null); } });
}

wire();
updateButtons();
loadManifest();
buildInfo().then((s) => { $('build').textContent = `engine: ${s}`; }).catch(() => {});

// The training panel and the length study live in their own modules (another part of the demo).
// api.loadModelBytes(bytes, label): adds a checkpoint to "Your models" and selects it; resolves to its
// picker id, rejects when the checkpoint is refused (the message is shown on the page too).
const api = { loadModelBytes: (bytes, label) => loadUserBytes(bytes, label ?? 'trained model') };
// A panel whose module fails to load or mount says so in its place and in the console, instead of
// leaving an empty section. (The import() calls stay literal so bundlers still see them.)
function mountPanel(id, what, load) {
  load().then((m) => m.mount($(id), api)).catch((e) => {
    console.error(`attnseq demo: the ${what} could not be loaded:`, e);
    $(id).append(h('p', { class: 'errors panel-error', role: 'alert' },
      `The ${what} could not be loaded, so it is missing from this page; reloading may help. (${errText(e)})`));
  });
}
mountPanel('train-panel', 'training panel', () => import('./train/panel.js'));
mountPanel('length-study', 'length study', () => import('./study/panel.js'));
