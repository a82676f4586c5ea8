// Loading (the package's first job): init(), the engine's .wasm found, read and started once per
// thread, the bytes behind what loadModel() and createPool() take (arrays, Blobs, Responses, URLs and
// paths), a status turned into AttnseqError, and the engine's diagnostics.
import createAttnseqCore from '../dist/attnseq-core.mjs';
import { isNode, nodeModule } from './platform.js';
import { AttnseqError } from './errors.js';
import { learnDecodeOptions, decodeRows, checkOptions, describe } from './options.js';
import { offerRelaxed } from './relaxed.js';

let corePromise = null;
let coreBytes = null;   // the .wasm this thread's engine started from (a pool's Workers start from it too)
let initOptions = {};

/**
 * Optional: where to find attnseq-core.wasm (e.g. a CDN). Call before the first loadModel().
 * A failed init() changes nothing: the engine stays uninitialised, so init() may be called again.
 */
export async function init(options = {}) {
  checkOptions(options, 'init');
  if (options.locateFile !== undefined && typeof options.locateFile !== 'function')
    throw new AttnseqError('BAD_INPUT', `init: locateFile must be a function, got ${describe(options.locateFile)}`);
  if (options.wasmBinary !== undefined) bufferBytes(options.wasmBinary, 'init: wasmBinary');
  if (options.relaxedSimd !== undefined && options.relaxedSimd !== false && options.relaxedSimd !== 'auto')
    throw new AttnseqError('BAD_INPUT', `init: relaxedSimd must be 'auto' or false, got ${describe(options.relaxedSimd)}`);
  if (corePromise) throw new AttnseqError('ALREADY_INITIALISED', 'init() must be called before the engine is first used');
  initOptions = { ...options };
  try {
    await core();
  } catch (e) {
    initOptions = {};
    throw e;
  }
}

// Where a file of dist/ is: beside this package, or where init()'s locateFile says. (Each default
// written out in full, so that bundlers see the files.)
function wasmUrl(file = 'attnseq-core.wasm') {
  if (!initOptions.locateFile) {
    return (file === 'attnseq-core.wasm' ? new URL('../dist/attnseq-core.wasm', import.meta.url)
      : new URL('../dist/attnseq-relaxed.wasm', import.meta.url)).href;
  }
  let url;
  try {
    url = initOptions.locateFile(file);
  } catch (e) {
    throw new AttnseqError('LOAD_FAILED', `init: locateFile threw: ${e?.message ?? String(e)}`);
  }
  if (url instanceof URL) return url.href;
  if (typeof url !== 'string' || url === '')
    throw new AttnseqError('BAD_INPUT', `init: locateFile must return a URL or a string, got ${describe(url)}`);
  return url;
}

export async function core() {
  if (!corePromise) {
    corePromise = (async () => {
      const coreUrl = initOptions.wasmBinary !== undefined ? null : wasmUrl();
      const wasmBinary = coreUrl === null ? bufferBytes(initOptions.wasmBinary, 'init: wasmBinary') : await readUrl(coreUrl);
      // Refused here, Emscripten would print "Aborted(CompileError ...)" on stderr on its way down.
      if (!WebAssembly.validate(wasmBinary))
        throw new AttnseqError('LOAD_FAILED', `the engine's .wasm is not a WebAssembly module (${wasmBinary.length} bytes)`);
      const { M, exports } = await startEngine(wasmBinary);
      if (initOptions.relaxedSimd === false) M.usePlainProducts('turned off by init({ relaxedSimd: false })');
      else {
        await offerRelaxed(M, exports, async () => {
          const url = wasmUrl('attnseq-relaxed.wasm');
          // A locateFile that gives one URL whatever the file (written for the engine alone) would
          // make the engine's .wasm be read twice, for nothing.
          if (coreUrl !== null && url === coreUrl) throw new Error(`init's locateFile gave the engine's own file (${url}) for it`);
          return readUrl(url);
        });
      }
      coreBytes = wasmBinary;
      learnDecodeOptions(M.decodeOptions());
      return M;
    })();
    corePromise.catch(() => { corePromise = null; });
  }
  return corePromise;
}

/**
 * Instantiates the Emscripten module from checked bytes. We instantiate the wasm ourselves: a valid
 * module that is not this engine's (wrong exports) would otherwise throw inside Emscripten's callback
 * and leave its promise pending for ever. Its messages are held back until it has started, and only
 * shown if it did (a failure's messages go into the LOAD_FAILED error instead). Resolves to the module
 * and the instance's exports.
 */
function startEngine(wasmBinary) {
  return new Promise((resolve, reject) => {
    let starting = true, exports = null;  // the instance's exports: its memory and function table (relaxed.js)
    const held = [];
    const fail = (why) => {
      starting = false;
      const detail = held.length ? ` (${held.join('; ')})` : '';
      reject(new AttnseqError('LOAD_FAILED', `the engine could not start: ${why}${detail}`));
    };
    createAttnseqCore({
      printErr: (text) => (starting ? held.push(text) : console.warn(text)),
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(wasmBinary, imports).then(({ instance, module }) => {
          try {
            exports = instance.exports;
            receive(instance, module);
          } catch (e) {
            fail(`this is not attnseq-core.wasm: ${e?.message ?? String(e)}`);
          }
        }, (e) => fail(e?.message ?? String(e)));
        return {};  // asynchronous: Emscripten waits for receive()
      },
    }).then((M) => {
      starting = false;
      for (const text of held) console.warn(text);  // it started: whatever it said is shown after all
      resolve({ M, exports });
    }, (e) => fail(e?.message ?? String(e)));
  });
}

/** A detached ArrayBuffer (transferred to a Worker, say) has no bytes left to read. */
function isDetached(buffer) {
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/** A Uint8Array over an ArrayBuffer's or a view's bytes; null if `v` is neither (BAD_INPUT for init). */
function bufferBytes(v, what) {
  const isView = ArrayBuffer.isView(v);
  if (!isView && !(v instanceof ArrayBuffer)) {
    if (what.startsWith('init')) throw new AttnseqError('BAD_INPUT', `${what} must be a Uint8Array or an ArrayBuffer, got ${describe(v)}`);
    return null;
  }
  // A view's offset cannot even be read once its buffer is detached: test the buffer first.
  if (isDetached(isView ? v.buffer : v)) throw new AttnseqError('BAD_INPUT', `${what}: its ArrayBuffer is detached (transferred elsewhere)`);
  if (v instanceof Uint8Array) return v;
  return isView ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v);
}

const HTTP = /^https?:/i;

/** The bytes behind a URL or (in Node) a path or file: URL; LOAD_FAILED if they cannot be read. */
async function readUrl(href) {
  if (isNode && !HTTP.test(href)) {
    const { readFile } = await nodeModule('fs/promises');
    try {
      return new Uint8Array(await readFile(/^file:/i.test(href) ? new URL(href) : href));
    } catch (e) {
      throw new AttnseqError('LOAD_FAILED', `could not read ${href}: ${e.message}`);
    }
  }
  let res;
  try {
    res = await fetch(href);
  } catch (e) {
    throw new AttnseqError('LOAD_FAILED', `could not fetch ${href}: ${e.message}`);
  }
  return responseBytes(res);
}

async function responseBytes(res) {
  if (!res.ok) throw new AttnseqError('LOAD_FAILED', `HTTP ${res.status} for ${res.url}`);
  if (res.bodyUsed) throw new AttnseqError('BAD_INPUT', `the body of this Response${res.url ? ` (${res.url})` : ''} has already been read`);
  try {
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new AttnseqError('LOAD_FAILED', `could not read the body of ${res.url || 'a Response'}: ${e.message}`);
  }
}

export function check(status) {
  if (!status.ok) throw new AttnseqError(status.code, status.message);
  return status;
}

// A checkpoint's bytes from what loadModel() takes. own: whether the array is ours (read here) rather
// than the caller's, which they may change afterwards.
export async function toBytes(source, what = 'loadModel()') {
  const bytes = bufferBytes(source, what);
  if (bytes) return { bytes, own: false };
  return { bytes: await sourceBytes(source, what), own: true };
}

async function sourceBytes(source, what) {
  if (typeof Response !== 'undefined' && source instanceof Response) return responseBytes(source);
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    try {
      return new Uint8Array(await source.arrayBuffer());
    } catch (e) {
      throw new AttnseqError('LOAD_FAILED', `could not read the Blob: ${e.message}`);
    }
  }
  if (source instanceof URL || typeof source === 'string') return readUrl(source instanceof URL ? source.href : source);
  throw new AttnseqError('BAD_INPUT', `${what} takes a Uint8Array, ArrayBuffer, Blob, Response, URL or path` +
    (what.startsWith('createPool') ? ', or a Model' : ''));
}

/** Diagnostics: wasm heap bytes in use (malloc), the stack pointer and the memory size. */
export async function memoryStats() {
  return (await core()).memoryStats();
}

/**
 * The decode options, as the engine's one table has them (src/decode/options.hpp): each with its
 * name, kind ('integer', 'number' or 'boolean'), range [min, max], default, note, help and scope
 * (where it applies: 'one' translate(), 'batch' translateBatch() and translateStream(), 'step'
 * decoder(), 'eval' the command line's eval).
 */
export async function decodeOptions() {
  await core();
  return decodeRows();
}

/** Diagnostics: the engine's build (xsimd arch). */
export async function buildInfo() {
  return (await core()).buildInfo();
}

/** The engine's .wasm, from where init() was told to find it (each Worker starts its engine from these bytes). */
export async function engineBytes() {
  if (coreBytes) return coreBytes;
  return initOptions.wasmBinary !== undefined ? bufferBytes(initOptions.wasmBinary, 'init: wasmBinary') : readUrl(wasmUrl());
}
