// One Worker of a pool (createPool() in attnseq.js): its own engine, started from the .wasm bytes the
// pool sends, and its own copy of the model. Messages, each with a job id that the answer repeats:
//   { op: 'start', wasm, model, quantize }  ->  { ok: true, op: 'start', decodeOptions } (the engine's table)
//   { op: 'batch', inputs, options }        ->  { ok: true, results } (model.translateBatch's array)
// and { ok: false, code, message, index, detail } for an error (index: translateBatch's bad entry;
// detail: the message without its index).
// The same file runs as a browser module Worker and as a Node worker_threads Worker.
// No top-level await: a bundler may build this file as a classic script (Vite's default, "iife").
import { init, loadModel, decodeOptions, AttnseqError } from './attnseq.js';
import { isNode, nodeModule } from './platform.js';

let model = null;

async function answer(m) {
  switch (m.op) {
    case 'start':
      await init({ wasmBinary: m.wasm });
      model = await loadModel(m.model, m.quantize === undefined ? {} : { quantize: m.quantize });
      return { ok: true, op: 'start', decodeOptions: await decodeOptions() };
    case 'batch': {
      if (!model) throw new AttnseqError('NOT_LOADED', 'this pool Worker has no model');
      const results = model.translateBatch(m.inputs, m.options);
      // The weights' buffers move to the pool's thread instead of being copied.
      const transfer = new Set();
      for (const r of results) for (const h of r.hypotheses) if (h.attention?.buffer instanceof ArrayBuffer) transfer.add(h.attention.buffer);
      return [{ ok: true, results }, [...transfer]];
    }
    default:
      throw new AttnseqError('BAD_INPUT', `unknown pool message ${JSON.stringify(m.op)}`);
  }
}

// Node keeps a port's messages until it has a listener, so none is lost while worker_threads loads.
const port = isNode ? nodeModule('worker_threads').then((w) => w.parentPort) : Promise.resolve(self);
const reply = async (m, transfer) => (await port).postMessage(m, transfer);
const onMessage = async (m) => {
  try {
    const a = await answer(m);
    const [msg, transfer] = Array.isArray(a) ? a : [a, []];
    reply({ ...msg, job: m.job }, transfer);
  } catch (e) {
    const known = e instanceof AttnseqError;
    reply({ job: m.job, ok: false, code: known ? e.code : 'WORKER', message: known ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}`, index: e?.index, detail: e?.detail });
  }
};
if (isNode) port.then((p) => p.on('message', onMessage));
else self.onmessage = (e) => onMessage(e.data);
