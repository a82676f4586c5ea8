// The package's one error class, and its error codes in one table (every module of wasm/ throws
// AttnseqError; attnseq.js exports both). wasm/index.d.ts's AttnseqErrorCode, the README's list and
// the codes the engine's bindings return (ATTNSEQ_ERROR_KINDS, src/core/errors.hpp) are held to this table by
// tests/js/error-codes.test.mjs.

/** Every AttnseqError.code, with what it means. */
export const ERROR_CODES = Object.freeze({
  BAD_INPUT: 'an argument, option, token or text is wrong (the message names it)',
  TOO_LONG: 'over a documented length limit',
  BAD_CHECKPOINT: 'a malformed checkpoint or trainer-state file (the message names the tensor and the numbers)',
  LOAD_FAILED: 'a path, URL or .wasm that cannot be read, or is not what it should be',
  DISPOSED: 'a call on an object after dispose(), or on one made from a disposed model',
  NOT_LOADED: 'an engine handle used before it holds a model',
  NOT_ENCODED: 'an engine handle used before it holds an encoded source',
  ALREADY_INITIALISED: 'init() called after the engine was first used',
  WORKER: 'a pool Worker failed (it could not start, or it stopped)',
  OUT_OF_MEMORY: 'the engine could not allocate what the call needs',
  INTERNAL: 'a fault of attnseq itself (please report it)',
});

/** Error thrown by every attnseq call; `code` is one of ERROR_CODES (BAD_INPUT, BAD_CHECKPOINT, TOO_LONG, ...). */
export class AttnseqError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'AttnseqError';
    this.code = code;
  }
}

/**
 * translateBatch()'s error for inputs[index]: the message names the index, and so does `error.index`;
 * `error.detail` is the message without it (what a caller that numbers its inputs otherwise reads).
 */
export function entryError(code, index, message) {
  const e = new AttnseqError(code, `inputs[${index}]: ${message}`);
  e.index = index;
  e.detail = message;
  return e;
}
