// A small app that uses the npm package by name, built by tests/browser/bundlers.test.mjs with Vite's and webpack's
// defaults: it translates on this thread (translate, translateBatch) and on a pool of two module
// Workers, and writes { tokens, attention, batch, batchAttention, pooled, workers } or { error } as
// JSON into #out, then sets data-done.
import { loadModel, createPool } from 'attnseq';

const MODEL = '/model.safetensors';  // the app's public/ folder
const SOURCE = 'w5 w6 w7 w8 w4';
const EXTRA = 'w6 w7 w8';
const out = document.getElementById('out');

async function run() {
  const model = await loadModel(await fetch(MODEL));
  const r = model.translate(SOURCE);
  const b = model.translateBatch([SOURCE, EXTRA]);
  model.dispose();
  const pool = await createPool(new URL(MODEL, location.href), { workers: 2 });
  const p = await pool.translateBatch([SOURCE, EXTRA]);
  const workers = pool.workers;
  pool.dispose();
  return {
    tokens: r.tokens, attention: Array.from(r.attention), batch: b.map((x) => x.tokens), batchAttention: Array.from(b[0].attention),
    pooled: p.map((x) => x.tokens), pooledAttention: Array.from(p[0].attention), workers,
  };
}

run().then((v) => v, (e) => ({ error: `${e?.name}: ${e?.message}` })).then((v) => {
  out.textContent = JSON.stringify(v);
  out.dataset.done = '1';
});
