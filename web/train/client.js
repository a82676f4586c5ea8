// Main-thread side of web/worker.js: one module Worker per client, requests as promises.
// call(name, ...args) resolves with the result; start(name, args, onProgress) also returns the
// job id so cancel(id) can stop it. Errors reject with an Error carrying the worker's `code`.
export class EngineError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
  }
}

export class EngineClient {
  #worker = null;
  #next = 1;
  #pending = new Map();  // id -> { resolve, reject, onProgress }

  #ensure() {
    if (this.#worker) return this.#worker;
    // Written out in full so bundlers recognise and bundle the worker.
    const w = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (e) => {
      const { id, result, error, progress } = e.data;
      const p = this.#pending.get(id);
      if (!p) return;
      if (progress !== undefined) { p.onProgress?.(progress); return; }
      this.#pending.delete(id);
      if (error) p.reject(new EngineError(error.code, error.message));
      else p.resolve(result);
    };
    // A worker that fails to load (or throws at top level) would otherwise leave every promise hanging.
    w.onerror = (e) => {
      e.preventDefault?.();
      this.#failAll(new EngineError('WORKER', `the engine worker failed: ${e.message || 'could not load web/worker.js'}`));
    };
    this.#worker = w;
    return w;
  }

  #failAll(err) {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    this.#worker?.terminate();
    this.#worker = null;
  }

  start(name, args = [], onProgress) {
    const id = this.#next++;
    const done = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onProgress }));
    this.#ensure().postMessage({ id, name, args });
    return { id, done };
  }

  call(name, ...args) { return this.start(name, args).done; }

  cancel(jobId) { return this.call('cancel', jobId); }

  terminate() { this.#failAll(new EngineError('TERMINATED', 'the engine worker was stopped')); }
}
