// Main-thread side of web/worker.js: one module Worker per client, requests as promises, in the
// package's Worker protocol (wasm/rpc.js). call(name, ...args) resolves with the result; start(name,
// args, onProgress) also returns the job id so cancel(id) can stop it. Errors reject with the
// package's AttnseqError (its `code`; 'WORKER' when the Worker itself fails, 'DISPOSED' after terminate()).
import { AttnseqError } from '../../wasm/errors.js';
import { RpcClient } from '../../wasm/rpc.js';

export class EngineClient {
  #worker = null;
  #rpc = null;

  #ensure() {
    if (this.#rpc) return this.#rpc;
    // Written out in full so bundlers recognise and bundle the worker.
    const w = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    const rpc = new RpcClient((m, t) => w.postMessage(m, t));
    w.onmessage = (e) => rpc.receive(e.data);
    // A worker that fails to load (or throws at top level) would otherwise leave every promise hanging.
    w.onerror = (e) => {
      e.preventDefault?.();
      this.#failAll(new AttnseqError('WORKER', `the engine worker failed: ${e.message || 'could not load web/worker.js'}`));
    };
    this.#worker = w;
    this.#rpc = rpc;
    return rpc;
  }

  #failAll(err) {
    this.#rpc?.failAll(err);
    this.#worker?.terminate();
    this.#worker = null;
    this.#rpc = null;
  }

  start(name, args = [], onProgress) { return this.#ensure().start(name, args, { onProgress }); }

  call(name, ...args) { return this.start(name, args).done; }

  cancel(jobId) { return this.call('cancel', jobId); }

  terminate() { this.#failAll(new AttnseqError('DISPOSED', 'the engine worker was stopped')); }
}
