// One Worker of a pool (createPool() in pool.js): its own engine, started from the .wasm bytes the
// pool sends, and its own copy of the model. It answers in the package's Worker protocol (rpc.js):
//   start({ wasm, model, quantize })  ->  { decodeOptions } (the engine's table)
//   batch(inputs, options)            ->  model.translateBatch's array (the weights' buffers moved)
// and an error as AttnseqError's fields (a bad entry of a batch: index and detail too).
// The same file runs as a browser module Worker and as a Node worker_threads Worker.
// No top-level await: a bundler may build this file as a classic script (Vite's default, "iife").
import { init, loadModel, decodeOptions, AttnseqError } from './attnseq.js';
import { isNode, nodeModule } from './platform.js';
import { serve, Transfer } from './rpc.js';

let model = null;

const handlers = {
  async start(_job, { wasm, model: bytes, quantize }) {
    await init({ wasmBinary: wasm });
    model = await loadModel(bytes, quantize === undefined ? {} : { quantize });
    return { decodeOptions: await decodeOptions() };
  },
  batch(_job, inputs, options) {
    if (!model) throw new AttnseqError('NOT_LOADED', 'this pool Worker has no model');
    const results = model.translateBatch(inputs, options);
    // The weights' buffers move to the pool's thread instead of being copied.
    const buffers = new Set();
    for (const r of results) for (const h of r.hypotheses) if (h.attention?.buffer instanceof ArrayBuffer) buffers.add(h.attention.buffer);
    return new Transfer(results, [...buffers]);
  },
};

// Node keeps a port's messages until it has a listener, so none is lost while worker_threads loads.
const port = isNode ? nodeModule('worker_threads').then((w) => w.parentPort) : Promise.resolve(self);
let post = (m, t) => self.postMessage(m, t);
const receive = serve(handlers, (m, t) => post(m, t));
if (isNode) port.then((p) => { post = (m, t) => p.postMessage(m, t); p.on('message', receive); });
else self.onmessage = (e) => receive(e.data);
