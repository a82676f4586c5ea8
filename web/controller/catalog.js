// The models the page knows: the shipped list (models/index.json), each model loaded once when first
// asked for (a failed load is retried the next time), the picker's options, a model's one-line
// description and the examples of its task. Interface: readManifest(), ensureModel(entry),
// fillSelect(), describe(entry, model), examplesFor(task), modelURL(entry).
import { loadModel, createEnsemble, Ensemble } from '../../wasm/attnseq.js';
import { h } from '../views/dom.js';
import { state } from './state.js';
import { $, showError } from './page.js';

/** The URL of a shipped model's file (member i of an ensemble's files): a path under models/, each
 * of its segments encoded. */
export const modelURL = (entry, i = 0) => new URL(`../../models/${(entry.files?.[i] ?? entry.file).split('/').map(encodeURIComponent).join('/')}`, import.meta.url);

/** Whether an entry's model is an ensemble (several files decoding together). */
export const isEnsemble = (model) => model instanceof Ensemble;

/** Reads models/index.json into state.manifest and adds its models to the picker's entries. */
export async function readManifest() {
  try {
    const res = await fetch(new URL('../../models/index.json', import.meta.url));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    state.manifest = (await res.json()).models ?? [];
  } catch (e) {
    showError(`Could not read the list of shipped models (models/index.json: ${e.message}). You can still load your own checkpoint.`);
  }
  for (const m of state.manifest) {
    if (!m || typeof m.id !== 'string') continue;
    // An ensemble lists its members' files (decoding together); a model has one file.
    const files = Array.isArray(m.files) && m.files.length > 0 && m.files.every((x) => typeof x === 'string') ? m.files
      : typeof m.file === 'string' ? [m.file] : null;
    if (!files) continue;
    state.entries.set(m.id, {
      id: m.id, title: m.title ?? m.id, file: files[0], files, task: m.task ?? null, examples: m.examples ?? [],
      source: m.source ?? null, target: m.target ?? null, terms: m.terms ?? null, size: m.size ?? null,
      // The options the model is decoded with everywhere on the page (chosen on its dev data).
      decode: m.decode && typeof m.decode === 'object' ? { ...m.decode } : {},
      lexicon: m.lexicon && typeof m.lexicon.file === 'string' ? { ...m.lexicon } : null,   // read when first needed
      // A language of the pronunciation picker is named by its title, its file name says less.
      language: typeof m.language === 'string' ? m.language : null,
      user: false, model: null, promise: null, error: null,
    });
  }
}

/** The entry's model, loading it once; a failed load is retried the next time it is asked for. */
export function ensureModel(entry) {
  if (entry.model) return Promise.resolve(entry.model);
  if (!entry.promise) {
    entry.promise = loadEntry(entry).then(
      (m) => { entry.model = m; entry.error = null; entry.promise = null; return m; },
      (e) => { entry.error = e; entry.promise = null; throw e; });
  }
  return entry.promise;
}

// A shipped entry's model: its file, or its members' files as an ensemble (all loaded, or none kept).
async function loadEntry(entry) {
  const files = entry.files ?? [entry.file];
  if (files.length === 1) return loadModel(modelURL(entry));
  const got = await Promise.allSettled(files.map((_, i) => loadModel(modelURL(entry, i))));
  const models = got.filter((g) => g.status === 'fulfilled').map((g) => g.value);
  const failed = got.find((g) => g.status === 'rejected');
  try {
    if (failed) throw failed.reason;
    return createEnsemble(models);
  } catch (e) {
    for (const m of models) m.dispose();
    throw e;
  }
}

/** The picker's options: shipped models, then the user's; a model that failed to load says so. */
const TASK_GROUPS = {
  translate: 'Translation', pron: 'Pronunciation: pick a language', dates: 'Dates',
  'en-ko': 'English → Korean toy grammar', reverse: 'Reversing a sequence',
};

export function fillSelect() {
  const sel = $('model');
  const all = [...state.entries.values()];
  const shipped = all.filter((e) => !e.user), mine = all.filter((e) => e.user);
  const opt = (e) => h('option', { value: e.id, text: e.title + (e.error && !e.model ? ' — not available' : '') });
  // The shipped models by task, in index.json's order: pronunciation is a language picker.
  const groups = [];
  for (const task of new Set(shipped.map((e) => e.task))) {
    groups.push(h('optgroup', { label: TASK_GROUPS[task] ?? 'Shipped models' }, shipped.filter((e) => e.task === task).map(opt)));
  }
  if (mine.length) groups.push(h('optgroup', { label: 'Your models' }, mine.map(opt)));
  sel.replaceChildren(...(groups.length ? groups : [h('option', { value: '', text: 'No models yet' })]));
  sel.disabled = state.entries.size === 0;
  if (state.current) sel.value = state.current.id;
}

export function describe(entry, model) {
  if (isEnsemble(model)) {
    const n = model.size, params = model.models.reduce((s, m) => s + m.config.parameters, 0);
    return `${entry.title}: an ensemble of ${n} models decoding together (each step ranks tokens by their mean log-probability; ` +
      `the matrix shows their mean attention, or one model's). ${describe({ ...entry, title: entry.files[0], user: true, terms: null }, model.models[0])
        .replace(/, [\d,]+ parameters\.$/, '')}; ${params.toLocaleString('en')} parameters in all.${entry.terms ? ` ${entry.terms}` : ''}`;
  }
  const c = model.config;
  const att = c.style === 'none' ? 'vanilla (no attention)' : `${c.style} attention, ${c.score} score`;
  return `${entry.user ? entry.title : entry.language ? `${entry.title} (${entry.file})` : entry.file}: ${c.cell.toUpperCase()} ${att}${c.inputFeeding ? ', input feeding' : ''}` +
    `${c.bidirectional ? ', bidirectional encoder' : ''}, hidden ${c.hidden}, vocabulary ${c.srcVocabSize} → ${c.tgtVocabSize}` +
    `, ${entry.task === 'pron' && c.srcTokenizer === 'char' ? 'reads letters (Unicode code points), writes phones' : c.tokenizer === 'ids' ? 'token ids' : c.tokenizer === 'mixed' ? `${c.srcTokenizer} → ${c.tgtTokenizer} tokens` : `${c.tokenizer === 'spm' ? 'subword (SentencePiece)' : c.tokenizer} tokens`}${c.srcHangul === 'jamo' ? ' (Hangul read as jamo: each syllable as its 2 or 3 letters, shown under it)' : ''}, ${c.parameters.toLocaleString('en')} parameters.` +
    (entry.terms ? ` ${entry.terms}` : '');
}

/** The examples of the first shipped model of `task` that has some. */
export function examplesFor(task) {
  if (!task) return [];
  return state.manifest.find((m) => m.task === task && m.examples?.length)?.examples ?? [];
}
