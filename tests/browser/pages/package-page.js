// The npm package as a page gets it: the installed tarball served under /node_modules/attnseq/.
// ?mode=worker: a module Worker (package-worker.js) uses it with the .wasm at its default place;
// ?mode=locate: init({ locateFile }) sends the engine to /elsewhere/core.wasm;
// ?mode=binary: init({ wasmBinary }) gets bytes this page fetched from /elsewhere/core.wasm itself;
// ?mode=pool: init({ locateFile }) as in 'locate', then createPool(FIXTURE, { workers: 2 }): its
// Workers start from the bytes the pool read there (they never fetch a .wasm themselves);
// ?mode=pool-missing: createPool() while pool-worker.js answers 404 ({ code, message, tokens }).
// Writes { tokens, attention, batch, batchAttention, asked? } or { error } as JSON into #out and sets
// data-done (batch: translateBatch([SOURCE, BATCH_EXTRA])'s tokens; batchAttention: its first attention).
import { init, loadModel, createPool, buildInfo } from '/node_modules/attnseq/wasm/attnseq.js';

const FIXTURE = '/fixtures/gru_luong_general.safetensors';
const SOURCE = 'w5 w6 w7 w8 w4';
const BATCH_EXTRA = 'w6 w7 w8';
const out = document.getElementById('out');
const finish = (v) => { out.textContent = JSON.stringify(v); out.dataset.done = '1'; };

async function translate() {
  const model = await loadModel(await fetch(FIXTURE));
  const r = model.translate(SOURCE);
  const b = model.translateBatch([SOURCE, BATCH_EXTRA]);
  model.dispose();
  return { tokens: r.tokens, attention: Array.from(r.attention), batch: b.map((x) => x.tokens), batchAttention: Array.from(b[0].attention) };
}

async function run(mode) {
  if (mode === 'worker') {
    const w = new Worker(new URL('./package-worker.js', import.meta.url), { type: 'module' });
    const res = new Promise((resolve) => {
      w.onmessage = (e) => resolve(e.data);
      w.onerror = (e) => resolve({ error: `worker: ${e.message}` });
    });
    w.postMessage({ fixture: FIXTURE, source: SOURCE, extra: BATCH_EXTRA });
    return res;
  }
  if (mode === 'locate') {
    const asked = [];
    await init({ locateFile: (file) => { asked.push(file); return '/elsewhere/core.wasm'; } });
    return { ...(await translate()), asked, build: await buildInfo() };
  }
  if (mode === 'binary') {
    const res = await fetch('/elsewhere/core.wasm');
    if (!res.ok) throw new Error(`the page could not fetch /elsewhere/core.wasm: HTTP ${res.status}`);
    await init({ wasmBinary: await res.arrayBuffer() });
    return translate();
  }
  if (mode === 'pool') {
    await init({ locateFile: () => '/elsewhere/core.wasm' });
    const pool = await createPool(FIXTURE, { workers: 2 });
    const b = await pool.translateBatch([SOURCE, BATCH_EXTRA]);
    const workers = pool.workers;
    pool.dispose();
    return { tokens: b[0].tokens, attention: Array.from(b[0].attention), batch: b.map((x) => x.tokens), batchAttention: Array.from(b[0].attention), workers };
  }
  if (mode === 'pool-missing') {
    // The server answers 404 for pool-worker.js: createPool rejects, naming the Worker.
    try {
      await createPool(FIXTURE, { workers: 2 });
      return { error: 'createPool resolved without its Worker script' };
    } catch (e) {
      const model = await loadModel(await fetch(FIXTURE));   // and the package still works on this thread
      const r = model.translate(SOURCE);
      model.dispose();
      return { code: e.code, message: e.message, tokens: r.tokens };
    }
  }
  throw new Error(`unknown mode ${mode}`);
}

run(new URLSearchParams(location.search).get('mode')).then(finish, (e) => finish({ error: `${e.code ?? e.name}: ${e.message}` }));
