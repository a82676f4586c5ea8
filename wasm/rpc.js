// The one Worker protocol: the package's pool (pool.js's createPool, wasm/pool-worker.js) and the
// demo page's engine Worker (web/worker.js, web/train/client.js) speak it. A request
//   { id, name, args }
// is answered by
//   { id, result }  or  { id, error: { code, message, index?, detail?, status? } }
// with { id, progress } on the way for a long job. Errors travel as AttnseqError's fields and are
// AttnseqError again on the other side (an error without a code of its own arrives as 'WORKER', with
// its name in the message). A handler returns its result, or new Transfer(result, buffers) to move
// ArrayBuffers instead of copying them.
import { AttnseqError } from './errors.js';

/** A result whose `buffers` (ArrayBuffers) are transferred with it. */
export class Transfer {
  constructor(value, buffers) {
    this.value = value;
    this.buffers = buffers;
  }
}

/** An error as the protocol sends it. */
function errorFields(e) {
  const known = e instanceof AttnseqError || typeof e?.code === 'string';
  const f = { code: known ? e.code : 'WORKER', message: known ? String(e.message) : `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}` };
  for (const k of ['index', 'detail', 'status']) if (e?.[k] !== undefined) f[k] = e[k];
  return f;
}

/** The AttnseqError a received error stands for. */
export function errorFrom(f) {
  const e = new AttnseqError(f.code, f.message);
  for (const k of ['index', 'detail', 'status']) if (f[k] !== undefined) e[k] = f[k];
  return e;
}

/**
 * The Worker side: returns receive(message), which runs handlers[name](job, ...args) and posts the
 * answer through post(message, transfer). job: { id, cancelled, progress(p) }; `jobs` (a Map from id
 * to job) holds the jobs running, for a handler that cancels another.
 */
export function serve(handlers, post, jobs = new Map()) {
  return async (m) => {
    const { id, name, args = [] } = m ?? {};
    if (!Object.hasOwn(handlers, name)) {
      post({ id, error: { code: 'BAD_INPUT', message: `unknown request '${name}'` } });
      return;
    }
    const job = { id, cancelled: false, progress: (p) => post({ id, progress: p }) };
    jobs.set(id, job);
    try {
      const r = await handlers[name](job, ...args);
      if (r instanceof Transfer) post({ id, result: r.value }, r.buffers);
      else post({ id, result: r });
    } catch (e) {
      post({ id, error: errorFields(e) });
    } finally {
      jobs.delete(id);
    }
  };
}

/**
 * The other side of one Worker: start(name, args, { transfer, onProgress }) posts a request and
 * returns { id, done } (done: a promise of the result); receive(message) settles it; failAll(error)
 * rejects every request still open. A request that cannot be posted (a DataCloneError) throws from
 * start() and leaves nothing open.
 */
export class RpcClient {
  #post;
  #next = 1;
  #pending = new Map();   // id -> { resolve, reject, onProgress }

  constructor(post) {
    this.#post = post;
  }

  get pending() { return this.#pending.size; }

  start(name, args = [], { transfer = [], onProgress } = {}) {
    const id = this.#next++;
    const done = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, onProgress }));
    try {
      this.#post({ id, name, args }, transfer);
    } catch (e) {
      this.#pending.delete(id);
      done.catch(() => {});
      throw e;
    }
    return { id, done };
  }

  call(name, ...args) { return this.start(name, args).done; }

  receive(m) {
    const p = this.#pending.get(m?.id);
    if (!p) return;
    if (m.progress !== undefined) {
      p.onProgress?.(m.progress);
      return;
    }
    this.#pending.delete(m.id);
    if (m.error) p.reject(errorFrom(m.error));
    else p.resolve(m.result);
  }

  failAll(error) {
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
  }
}
