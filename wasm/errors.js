// The package's one error class (every module of wasm/ throws it; attnseq.js exports it).

/** Error thrown by every attnseq call; `code` is stable (BAD_INPUT, BAD_CHECKPOINT, TOO_LONG, DISPOSED, ...). */
export class AttnseqError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'AttnseqError';
    this.code = code;
  }
}
