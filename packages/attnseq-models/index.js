// attnseq-models: the models trained in the attnseq repository, loaded by id. The files are in this
// package's models/ folder (copied from the repository's models/ when the package is packed), listed
// in models/catalog.json: each entry of the repository's models/index.json with the bytes of each file.
//   import { load, list } from 'attnseq-models';
//   const g2p = await load('g2p-en');        // a Model, or an Ensemble for an entry of several files
//   const cmudict = await lexicon('g2p-en'); // its default lexicon, a Map (read only when asked for)
import { loadModel, createEnsemble, parseLexicon, AttnseqError } from 'attnseq';

const BASE = new URL('./models/', import.meta.url);
let catalog = null;

// A file of the package: its bytes (Node reads the folder; a page fetches it).
async function readBytes(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
    return new Uint8Array(await readFile(url));
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function readCatalog() {
  if (catalog) return catalog;
  const url = new URL('catalog.json', BASE);
  let text;
  try {
    if (url.protocol === 'file:') {
      const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
      text = await readFile(url, 'utf8');
    } else {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      text = await res.text();
    }
  } catch (e) {
    throw new AttnseqError('LOAD_FAILED', `attnseq-models: could not read its list of models (${url.href}): ${e.message}`);
  }
  catalog = JSON.parse(text).models;
  return catalog;
}

/**
 * The models in this package, in the demo page's order: { id, title, task, files, bytes (each file's
 * size), terms (the data's terms of use, when they restrict), examples, ... } for each.
 */
export async function list() {
  return (await readCatalog()).map((m) => ({ ...m, files: [...m.files], bytes: [...m.bytes], examples: [...(m.examples ?? [])] }));
}

async function entry(id, what) {
  const all = await readCatalog();
  if (typeof id !== 'string') throw new AttnseqError('BAD_INPUT', `${what}: the id must be a string, one of: ${all.map((m) => m.id).join(', ')}`);
  const m = all.find((x) => x.id === id);
  if (!m) throw new AttnseqError('BAD_INPUT', `${what}: no model '${id}' in attnseq-models; its ids: ${all.map((x) => x.id).join(', ')}`);
  return m;
}

/** The URLs of a model's files (one, or an ensemble's members), for loadModel() or fetch(). */
export async function urls(id) {
  return (await entry(id, 'urls')).files.map((f) => new URL(f.split('/').map(encodeURIComponent).join('/'), BASE));
}

/**
 * Loads the model `id`: a Model, or for an entry of several files an Ensemble of them (their
 * models are disposed with ensemble.dispose()). options go to loadModel() (quantize).
 */
export async function load(id, options = {}) {
  const files = await urls(id).catch((e) => { throw e.code === 'BAD_INPUT' ? new AttnseqError('BAD_INPUT', e.message.replace(/^urls:/, 'load:')) : e; });
  const got = await Promise.allSettled(files.map((u) => loadModel(u, options)));
  const models = got.filter((g) => g.status === 'fulfilled').map((g) => g.value);
  const failed = got.find((g) => g.status === 'rejected');
  if (failed) {
    for (const m of models) m.dispose();
    throw failed.reason;
  }
  if (models.length === 1) return models[0];
  try {
    return createEnsemble(models);
  } catch (e) {
    for (const m of models) m.dispose();
    throw e;
  }
}

const lexicons = new Map();   // id -> Promise of its Map, read once

/**
 * The default lexicon of the model `id` (g2p-en's: CMUdict's 118,837 words, 126,191 pronunciations), a Map from word (as the
 * lexicon writes it; CMUdict's are in capitals) to its pronunciations, for pronounce()'s `lexicon`
 * option. Read (about 0.8 MB, gzip) the first time it is asked for. BAD_INPUT for an id without one;
 * LOAD_FAILED when it cannot be read.
 */
export async function lexicon(id) {
  const m = await entry(id, 'lexicon');
  if (!m.lexicon) throw new AttnseqError('BAD_INPUT', `lexicon: model '${id}' has no lexicon; ${(await readCatalog()).filter((x) => x.lexicon).map((x) => x.id).join(', ') || 'none'} has one`);
  if (!lexicons.has(id)) {
    const url = new URL(m.lexicon.file, BASE);
    const p = (async () => {
      let text;
      try {
        const gz = await readBytes(url);
        const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
        text = await new Response(stream).text();
      } catch (e) {
        throw new AttnseqError('LOAD_FAILED', `attnseq-models: could not read the lexicon of '${id}' (${url.href}): ${e.message}`);
      }
      return parseLexicon(text, m.lexicon.file);
    })();
    lexicons.set(id, p);
    p.catch(() => lexicons.delete(id));   // a failed read is tried again the next time
  }
  return lexicons.get(id);
}
