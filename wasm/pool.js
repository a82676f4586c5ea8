// Batch translation on several cores: createPool() starts Workers (pool-worker.js), each with its own
// engine and model, and a Pool shares each call's inputs among them through the Worker protocol
// (rpc.js).
import { isNode, nodeModule } from './platform.js';
import { AttnseqError, entryError } from './errors.js';
import { RpcClient } from './rpc.js';
import { learnDecodeOptions, checkOptions, describe } from './options.js';
import { engineBytes, toBytes } from './engine.js';
import { Model, Encoded, checkpoints, translateStream } from './handles.js';

/** The most Workers a pool has (createPool's `workers`; the command line's --threads). */
export const MAX_WORKERS = 64;

/** Every core this thread may use: availableParallelism() in Node, hardwareConcurrency in a browser. */
async function coreCount() {
  if (isNode) {
    const os = await nodeModule('os');
    return os.availableParallelism?.() ?? os.cpus().length;
  }
  return globalThis.navigator?.hardwareConcurrency || 1;
}

/**
 * Batch translation on several cores: `workers` Workers (module Workers in a browser, worker_threads
 * in Node), each with its own engine and its own copy of the model, share each call's inputs. What
 * pool.translateBatch(inputs, options) resolves to is what model.translateBatch(inputs, options) returns,
 * bit for bit. source: a Model (its Workers load the checkpoint it was loaded from, quantised as it
 * was) or what loadModel() takes; options: { workers (default: every core, at most 64), quantize }.
 * Each Worker holds the model and the engine again (memory grows with `workers`).
 */
export async function createPool(source, options = {}) {
  checkOptions(options, 'createPool');
  const n = options.workers === undefined ? Math.min(await coreCount(), MAX_WORKERS) : options.workers;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS)
    throw new AttnseqError('BAD_INPUT', `createPool: option 'workers' is ${describe(n)}; it must be an integer in [1, ${MAX_WORKERS}]`);
  if (options.quantize !== undefined && options.quantize !== 'int8')
    throw new AttnseqError('BAD_INPUT', `createPool: option 'quantize' is ${describe(options.quantize)}; it must be 'int8' (or left out)`);
  let checkpoint;
  if (source instanceof Model) {
    void source._h;  // DISPOSED once disposed
    checkpoint = checkpoints.get(source);
    if (!checkpoint) throw new AttnseqError('BAD_INPUT', 'createPool: this Model was not made by loadModel(), so there is no checkpoint to load in the Workers');
  }
  const [wasm, bytes] = await Promise.all([engineBytes(), checkpoint?.bytes ?? toBytes(source, 'createPool()').then((b) => b.bytes)]);
  const quantize = options.quantize ?? checkpoint?.quantize;
  const pool = new Pool(POOL_KEY);
  try {
    await Promise.all(Array.from({ length: n }, () => pool._start(wasm, bytes, quantize)));
  } catch (e) {
    pool.dispose();
    throw e;
  }
  return pool;
}

// One Worker of a pool, the same in Node and in a browser: post(message), a handler per job id,
// and ref()/unref() so that an idle pool never keeps Node running.
async function spawn(onMessage, onFailure) {
  if (isNode) {
    const { Worker } = await nodeModule('worker_threads');
    // (The base in a variable: a bundler must not take this Node-only line for an asset to copy.)
    const base = import.meta.url;
    const w = nodeWorker(Worker, new URL('./pool-worker.js', base));
    w.on('message', onMessage);
    w.on('error', (e) => onFailure(e?.message ?? String(e)));
    w.on('exit', (code) => onFailure(`it exited (code ${code})`));
    w.unref();
    return { post: (m, t) => w.postMessage(m, t), ref: () => w.ref(), unref: () => w.unref(), stop: () => w.terminate() };
  }
  // (Written out in full so that bundlers see the Worker and bundle pool-worker.js.)
  const w = new Worker(new URL('./pool-worker.js', import.meta.url), { type: 'module' });
  w.onmessage = (e) => onMessage(e.data);
  w.onerror = (e) => { e.preventDefault?.(); onFailure(e.message || 'it could not load pool-worker.js'); };
  return { post: (m, t) => w.postMessage(m, t), ref() {}, unref() {}, stop: () => w.terminate() };
}

/**
 * A worker_threads Worker with the parent's flags where it can take them. Left to itself, Node gives a
 * Worker the parent's flags but the process-wide ones (--max-old-space-size, --stack-size, --title,
 * ...), which it refuses when they are passed explicitly (ERR_WORKER_INVALID_EXEC_ARGV). It would also
 * pass --input-type ("node --input-type=module -e"), which a Worker running a file refuses: then the
 * others are passed explicitly, or, if Node refuses one of them, none.
 */
function nodeWorker(Worker, url) {
  if (!process.execArgv.some((a) => a.startsWith('--input-type'))) return new Worker(url);
  const execArgv = process.execArgv.filter((a, i, all) => !a.startsWith('--input-type') && all[i - 1] !== '--input-type');
  try {
    return new Worker(url, { execArgv });
  } catch (e) {
    if (e?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
    return new Worker(url, { execArgv: [] });
  }
}

const POOL_KEY = Symbol('createPool');

/** Made by createPool(). */
export class Pool {
  constructor(key) {
    if (key !== POOL_KEY) throw new AttnseqError('BAD_INPUT', 'a Pool is made by createPool(source, options)');
  }
  #workers = [];       // each { post, ref, unref, stop, rpc } (spawn)
  #open = 0;           // requests not answered yet
  #broken = null;      // why the pool cannot work any more (a Worker failed, or dispose())

  get workers() { return this.#workers.length; }
  get disposed() { return this.#broken?.code === 'DISPOSED'; }

  async _start(wasm, bytes, quantize) {
    let rpc = null;
    const worker = await spawn((m) => rpc.receive(m), (why) => this.#fail(new AttnseqError('WORKER', `a pool Worker failed: ${why}`)));
    rpc = worker.rpc = new RpcClient((m, t) => worker.post(m, t));
    if (this.#broken) {  // another Worker failed to start while this one was being made
      worker.stop();
      throw this.#broken;
    }
    this.#workers.push(worker);
    const started = await this.#run(worker, 'start', [{ wasm, model: bytes, quantize }]);
    learnDecodeOptions(started.decodeOptions);  // the Workers' engine's table (this thread may run none)
  }

  // One request to one Worker (rpc.js); while any is open the Workers keep Node running.
  async #run(worker, name, args) {
    if (this.#broken) throw this.#broken;
    let done;
    try {
      ({ done } = worker.rpc.start(name, args));
    } catch (e) {  // a DataCloneError: an input or option holds a function, a symbol, ...
      // Named by its index, as any bad entry is, when it is an input (only then is each one tried).
      const index = name === 'batch' ? args[0].findIndex((x) => !cloneable(x)) : -1;
      const what = `${name === 'batch' ? 'translateBatch' : 'createPool'}: what was given cannot be sent to a Worker (${e?.message ?? String(e)})`;
      throw index < 0 ? new AttnseqError('BAD_INPUT', what) : Object.assign(new AttnseqError('BAD_INPUT', `inputs[${index}]: ${what}`), { index, detail: what });
    }
    if (this.#open++ === 0) for (const w of this.#workers) w.ref();
    try {
      return await done;
    } finally {
      if (--this.#open === 0) for (const w of this.#workers) w.unref();
    }
  }

  #fail(error) {
    if (this.#broken) return;
    this.#broken = error;
    for (const w of this.#workers) {
      w.rpc.failAll(error);
      w.stop();
    }
  }

  /**
   * model.translateBatch(inputs, options) on the pool's Workers: inputs are texts or ids (an Encoded
   * belongs to the thread that made it, so it is refused). Inputs are sorted by length and dealt in turn,
   * so every Worker gets a like share; a bad entry rejects with model.translateBatch's error, naming
   * its index in `inputs` (error.index), and the pool stays usable.
   */
  async translateBatch(inputs, options = {}) {
    if (this.#broken) throw this.#broken;
    checkOptions(options, 'translateBatch');
    if (!Array.isArray(inputs))
      throw new AttnseqError('BAD_INPUT', `translateBatch() takes an array of inputs, got ${describe(inputs)}`);
    const size = new Array(inputs.length);
    for (let k = 0; k < inputs.length; k++) {
      const x = inputs[k];
      if (x instanceof Encoded) throw entryError('BAD_INPUT', k, 'a pool takes texts or ids; an Encoded stays with the model that made it');
      size[k] = typeof x === 'string' ? x.length : (x?.length ?? 0);
    }
    const order = Array.from(size.keys()).sort((a, b) => size[a] - size[b] || a - b);
    const shares = this.#workers.map(() => []);
    order.forEach((k, i) => shares[i % shares.length].push(k));
    // (The non-empty shares are the first ones. No input: one Worker still checks the options.)
    const used = inputs.length ? shares.filter((sh) => sh.length) : [[]];
    const settled = await Promise.allSettled(used.map((sh, w) =>
      this.#run(this.#workers[w], 'batch', [sh.map((k) => inputs[k]), options])));
    // The first bad entry in `inputs` order, whichever Worker found it (each names its own index).
    let worst = null;
    settled.forEach((r, w) => {
      if (r.status === 'fulfilled') return;
      const e = r.reason;
      if (e?.index !== undefined) {
        const k = used[w][e.index];
        if (worst?.index === undefined || k < worst.index) worst = entryError(e.code, k, e.detail);
      } else worst ??= e;
    });
    if (worst) throw worst;
    const out = new Array(inputs.length);
    settled.forEach((r, w) => r.value.forEach((t, i) => { out[used[w][i]] = t; }));
    return out;
  }

  /** model.translateStream() on the pool: each window shared among the Workers (default window: 256 per Worker). */
  translateStream(inputs, options = {}) {
    if (this.#broken) throw this.#broken;
    checkOptions(options, 'translateStream');
    const { window = 256 * this.#workers.length, ...rest } = options;
    return translateStream(inputs, rest, window, (batch, o) => this.translateBatch(batch, o));
  }

  /** Stops the Workers; calls made after reject with DISPOSED (and any still running do too). */
  dispose() {
    this.#fail(new AttnseqError('DISPOSED', 'this Pool has been disposed'));
  }
  [Symbol.dispose]() { this.dispose(); }
}

function cloneable(v) {
  try {
    structuredClone(v);
    return true;
  } catch {
    return false;
  }
}
