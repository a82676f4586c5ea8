// attnseq-models: the models trained in the attnseq repository, loaded by id. The files are in this
// package's models/ folder (copied from the repository's models/ when the package is packed), listed
// in models/catalog.json: each entry of the repository's models/index.json with the bytes of each file.
//   import { load, list } from 'attnseq-models';
//   const g2p = await load('g2p-en');        // a Model, or an Ensemble for an entry of several files
import { loadModel, createEnsemble, AttnseqError } from 'attnseq';

const BASE = new URL('./models/', import.meta.url);
let catalog = null;

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
