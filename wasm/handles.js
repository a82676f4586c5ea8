// The handles: Model, Ensemble, Encoded, Decoder, EnsembleDecoder and Trainer, each owning its engine
// object (dispose() deletes it; a forgotten one is deleted when collected), with loadModel() and
// createTrainer(), which make them, and translateStream()'s windows, which a Pool shares.
import { AttnseqError, entryError } from './errors.js';
import { core, check, toBytes } from './engine.js';
import { decodeRows, checkStepOptions, checkOptions, describe } from './options.js';
import { checkWellFormed, toIds, knownTargetIds, replaceUnknowns } from './text.js';

/**
 * Loads a .safetensors checkpoint (f32, f16, bf16 or int8). options.quantize = 'int8' holds its
 * matrices as int8 with a scale per row, as `attnseq quantize` writes them (docs/checkpoint-format.md).
 */
export async function loadModel(source, options = {}) {
  checkOptions(options, 'loadModel');
  if (options.quantize !== undefined && options.quantize !== 'int8')
    throw new AttnseqError('BAD_INPUT', `loadModel: option 'quantize' is ${describe(options.quantize)}; it must be 'int8' (or left out)`);
  const M = await core();
  const { bytes, own } = await toBytes(source);
  const handle = new M.Model();
  const st = handle.load(bytes, options.quantize === 'int8');
  if (!st.ok) {
    handle.delete();
    throw new AttnseqError(st.code, st.message);
  }
  const model = new Model(M, handle);
  // What createPool(model) rebuilds it from in each Worker: the checkpoint's bytes (a copy of the
  // caller's array, which they may change), held until the model is disposed.
  checkpoints.set(model, { bytes: own ? bytes : bytes.slice(), quantize: options.quantize });
  return model;
}

/** Model -> { bytes, quantize }: the checkpoint it was loaded from (createPool(model)). */
export const checkpoints = new WeakMap();

/**
 * Creates a model from a configuration and trains it in the engine on a built-in task
 * ('dates', 'en-ko', 'reverse', 'copy') or on TSV text ({ tsv, tokenizer: 'char' | 'word' }, or a tokenizer
 * per side: { tsv, srcTokenizer: 'char', tgtTokenizer: 'word' }; `tokenizer` is both sides' default).
 */
export async function createTrainer(options = {}) {
  checkOptions(options, 'createTrainer');
  if (options.model !== undefined) checkOptions(options.model, 'createTrainer model');
  const M = await core();
  const task = options.task ?? 'copy';
  if (typeof task !== 'string' && (task === null || typeof task !== 'object'))
    throw new AttnseqError('BAD_INPUT', "task must be a task name or { tsv, tokenizer, srcTokenizer, tgtTokenizer }");
  if (typeof task === 'object') checkOptions(task, 'createTrainer task');
  const h = new M.Trainer();
  const st = h.create(options.model ?? {}, task, options);
  if (!st.ok) {
    h.delete();
    throw new AttnseqError(st.code, st.message);
  }
  return new Trainer(M, h, st);
}

// An Encoded or a Decoder refuses to work (DISPOSED) once the Model or Encoded it was made from is
// disposed, whatever the call: only dispose() itself is always allowed, in any order.
// A handle whose owner is garbage-collected without dispose() is deleted by the collector's
// callback, so a forgotten dispose() costs memory only until the next collection. The engine objects
// share ownership (wasm/bindings.cpp), so they may be freed in any order. dispose() stays the prompt
// way, and unregisters.
const collector = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { if (!handle.isDeleted()) handle.delete(); })
  : null;

class Disposable {
  #handle;
  #parents;
  constructor(handle, parents = []) {
    this.#handle = handle;
    this.#parents = parents;
    collector?.register(this, handle, this);
  }
  get _h() {
    if (!this.#handle) throw new AttnseqError('DISPOSED', `this ${this.constructor.name} has been disposed`);
    for (const p of this.#parents)
      if (p.disposed)
        throw new AttnseqError('DISPOSED', `the ${p.constructor.name} this ${this.constructor.name} was made from has been disposed`);
    return this.#handle;
  }
  get disposed() { return !this.#handle; }
  dispose() {
    if (this.#handle) {
      collector?.unregister(this);
      this.#handle.delete();
    }
    this.#handle = null;
  }
  [Symbol.dispose]() { this.dispose(); }
}

export class Model extends Disposable {
  #names = [null, null];
  #pieceIds = null;  // source piece -> id, made when first needed (#sourceIds)
  dispose() {
    checkpoints.delete(this);
    super.dispose();
  }  // per side, every id's display token, read from wasm once (see #namesOf)
  constructor(M, handle) {
    super(handle);
    this._M = M;
    const c = check(handle.config());
    const { ok, srcVocab, tgtVocab, ...config } = c;
    this.config = Object.freeze({ ...config, name: c.metadata.name ?? null, task: c.metadata.task ?? null });
    this.srcVocab = c.srcTokenizer === 'ids' ? null : Object.freeze(srcVocab);
    this.tgtVocab = c.tgtTokenizer === 'ids' ? null : Object.freeze(tgtVocab);
  }

  /** Source text (or ids) -> ids and the display tokens. */
  tokenize(input, side = 'source') {
    if (side !== 'source' && side !== 'target')
      throw new AttnseqError('BAD_INPUT', `tokenize(): side must be 'source' or 'target', got ${describe(side)}`);
    const s = side === 'target' ? 1 : 0;
    if (typeof input === 'string') {
      checkWellFormed(input);
      const r = check(this._h.tokenize(input, s));
      return { ids: r.ids, tokens: r.pieces };
    }
    const ids = toIds(input, side === 'target' ? this.config.tgtVocabSize : this.config.srcVocabSize, 'ids');
    const names = this.#namesOf(s);
    const tokens = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) tokens[i] = names[ids[i]];
    return { ids, tokens };
  }

  /**
   * Ids -> text as the side's tokenizer writes it: subword pieces decoded (SentencePiece's rules),
   * characters joined, words spaced; padding, start and end tokens left out. The inverse of tokenize().
   */
  detokenize(ids, side = 'target') {
    if (side !== 'source' && side !== 'target')
      throw new AttnseqError('BAD_INPUT', `detokenize(): side must be 'source' or 'target', got ${describe(side)}`);
    const s = side === 'target' ? 1 : 0;
    if (this.config[s ? 'tgtTokenizer' : 'srcTokenizer'] === 'ids')
      throw new AttnseqError('BAD_INPUT', `detokenize(): the ${side} side has no tokenizer (ids only)`);
    const v = toIds(ids, s ? this.config.tgtVocabSize : this.config.srcVocabSize, 'detokenize(): ids');
    return check(this._h.detokenize(v, s)).text;
  }

  // Every id's display token for side s (0 source, 1 target), asked of the engine once: ids then name
  // their tokens without a call into wasm (an encode of ids spent about 18 µs of its ~200 at H = 128
  // in that call; bench/RESULTS.md).
  #namesOf(s) {
    if (!this.#names[s]) {
      const n = s ? this.config.tgtVocabSize : this.config.srcVocabSize;
      this.#names[s] = Object.freeze(check(this._h.detokenize(Int32Array.from({ length: n }, (_, i) => i), s)).tokens);
    }
    return this.#names[s];
  }

  /** Runs the encoder once; the result feeds decoder() and translate(). */
  encode(input) {
    const { ids, tokens } = this.tokenize(input, 'source');
    if (ids.length === 0) throw new AttnseqError('BAD_INPUT', 'the source is empty');
    const h = new this._M.Source();
    const st = h.encode(this._h, ids);
    if (!st.ok) {
      h.delete();
      throw new AttnseqError(st.code, st.message);
    }
    return new Encoded(this, h, ids, tokens);
  }

  /** Starts step-by-step decoding of an encoded source. */
  decoder(enc, options = {}) {
    if (!(enc instanceof Encoded)) throw new AttnseqError('BAD_INPUT', 'decoder() takes the result of model.encode()');
    const opts = this.#options(options, 'decoder');
    const topk = topkOption(this._M, options);
    const h = new this._M.Decoder();
    const st = h.start(this._h, enc._h, opts);
    if (!st.ok) {
      h.delete();
      throw new AttnseqError(st.code, st.message);
    }
    return new Decoder(this, enc, h, st.maxLength, topk);
  }

  /** Decodes a whole sequence (greedy, beam or sampled). */
  translate(input, options = {}) {
    checkOptions(options, 'translate');
    const own = !(input instanceof Encoded);
    const enc = own ? this.encode(input) : input;
    try {
      const r = check(this._M.translate(this._h, enc._h, this.#options(options, 'translate')));
      const out = this.#translation(r.hypotheses, enc.tokens, r.cols, options.replaceUnknowns,
        (ids) => check(this._h.detokenize(ids, 1)).tokens, enc.ids);
      if (r.trace) out.beamTrace = this.#beamTrace(r.trace);
      return out;
    } finally {
      if (own) enc.dispose();
    }
  }

  /**
   * Many inputs in one call into the engine (translate_batch, src/decode/decode.hpp): result i is what
   * translate(inputs[i], options) returns, bit for bit, but each decoder step is one product over the
   * rows of every input (and beam), so many inputs go several times faster. Options: translate()'s,
   * and maxRows (decoder rows, inputs x beam, per group of inputs of similar length; default 256, at
   * most 1024), which changes speed and memory only. A bad entry throws naming its index
   * ("inputs[3]: " and what translate() would say; error.index is 3), before any decoding.
   */
  translateBatch(inputs, options = {}) {
    return this._translateBatchWith([], inputs, options, 'translateBatch');
  }

  // decoder() of an ensemble whose first member is this model (Ensemble.decoder below): every member
  // encodes the input, and the engine steps them together.
  _ensembleDecoder(ensemble, input, options) {
    if (input instanceof Encoded)
      throw new AttnseqError('BAD_INPUT', 'an ensemble decodes text or ids, not an Encoded (each member encodes the source itself)');
    const opts = this.#options(options, 'decoder');
    const topk = topkOption(this._M, options);
    const encs = [];
    try {
      for (const m of ensemble.models) encs.push(m.encode(input));
      const h = new this._M.EnsembleDecoder();
      const st = h.start(this._h, ensemble.models.slice(1).map((m) => m._h), encs.map((e) => e._h), opts);
      if (!st.ok) {
        h.delete();
        throw new AttnseqError(st.code, st.message);
      }
      return new EnsembleDecoder(ensemble, encs, h, st.maxLength, topk);
    } catch (e) {
      for (const x of encs) x.dispose();
      throw e;
    }
  }

  // translateBatch() with `others` decoding together with this model, an ensemble (Ensemble below).
  _translateBatchWith(others, inputs, options, where) {
    checkOptions(options, where);
    if (!Array.isArray(inputs))
      throw new AttnseqError('BAD_INPUT', `translateBatch() takes an array of inputs, got ${describe(inputs)}`);
    // The engine's default and limit (src/model/config.hpp); null is refused, as for translate()'s options.
    const maxRows = options.maxRows === undefined ? this._M.defaultRows : options.maxRows;
    const rowLimit = this._M.maxRows;
    if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > rowLimit)
      throw new AttnseqError('BAD_INPUT', `option 'maxRows' is ${describe(maxRows)}; it must be an integer in [1, ${rowLimit}]`);
    const opts = this.#options(options, where);
    const h = this._h;
    const otherHandles = others.map((m) => m._h);
    // What goes to the engine per input: text (tokenized there, as translate() has it tokenized) or
    // an Int32Array of ids; and the srcTokens already known (an Encoded's own, or the names of ids).
    const entries = new Array(inputs.length), known = new Array(inputs.length);
    for (let k = 0; k < inputs.length; k++) {
      const x = inputs[k];
      try {
        if (typeof x === 'string') {
          checkWellFormed(x);
          entries[k] = x;
        } else if (x instanceof Encoded) {
          void x._h;  // DISPOSED, as translate() says
          if (x.model !== this) throw new AttnseqError('BAD_INPUT', `start: ${FOREIGN_SOURCE}`);
          entries[k] = x.ids;
          known[k] = x.tokens;
        } else {
          entries[k] = toIds(x, this.config.srcVocabSize, 'ids');
          known[k] = Array.from(entries[k], this.srcVocab ? (id) => this.srcVocab[id] : (id) => `#${id}`);
        }
      } catch (e) {
        if (e instanceof AttnseqError) throw entryError(e.code, k, e.message);
        throw e;
      }
    }
    const r = this._M.translateBatch(h, otherHandles, entries, opts, maxRows);
    if (!r.ok) throw r.index !== undefined ? entryError(r.code, r.index, r.message) : new AttnseqError(r.code, r.message);
    // Cut the engine's flat arrays (wasm/bindings.cpp, translate_batch_js) into translate()'s objects.
    const names = targetNames(this);
    const tgtTokens = (ids) => Array.from(ids, (id) => names[id] ?? tokenName(names, id));
    const out = new Array(inputs.length);
    let piece = 0, at = 0, hyp = 0, tok = 0, att = 0, matt = 0;
    const members = r.members;
    for (let i = 0; i < inputs.length; i++) {
      const cols = r.srcLengths[i];
      let srcTokens = known[i];
      if (srcTokens === undefined) {
        srcTokens = new Array(cols);
        for (let t = 0; t < cols; t++) {
          const len = r.pieceLengths[piece++];
          srcTokens[t] = r.pieces.slice(at, at + len);
          at += len;
        }
      }
      const hyps = new Array(r.hypCounts[i]);
      for (let j = 0; j < hyps.length; j++, hyp++) {
        const n = r.tokenCounts[hyp];
        hyps[j] = {
          ids: r.ids.slice(tok, tok + n), attention: r.attention.slice(att, att + n * cols),
          score: r.score[hyp], logProb: r.logProb[hyp], finished: r.finished[hyp] !== 0,
        };
        if (members > 1) {
          hyps[j].memberAttention = Array.from({ length: members }, (_, m) => r.memberAttention.slice(matt + m * n * cols, matt + (m + 1) * n * cols));
          matt += members * n * cols;
        }
        tok += n;
        att += n * cols;
      }
      out[i] = this.#translation(hyps, srcTokens, cols, options.replaceUnknowns, tgtTokens,
        typeof entries[i] === 'string' ? null : entries[i]);
    }
    return out;
  }

  /**
   * translateBatch() a window at a time: an async iterator of the results of `inputs` (an Iterable or
   * an AsyncIterable, read as results are asked for), in input order, each what translate() returns.
   * Options: translateBatch()'s and `window` (see translateStream below). A bad entry throws naming its
   * index in the whole stream, once the results before its window have been delivered.
   */
  translateStream(inputs, options = {}) {
    checkOptions(options, 'translateStream');
    void this._h;
    const { window = this._M.defaultRows, ...rest } = options;
    return translateStream(inputs, rest, window, (batch, o) => this.translateBatch(batch, o));
  }

  // translate()'s object from the engine's hypotheses ({ ids, attention, score, logProb, finished },
  // best first); translateBatch() builds each of its results here too. tgtTokens(ids): a new array.
  // srcIds: the source's ids, or null to look them up from srcTokens (a subword model's words need them).
  #translation(raw, srcTokens, cols, replace, tgtTokens, srcIds) {
    const subword = this.config.srcTokenizer === 'spm' || this.config.tgtTokenizer === 'spm';
    const hyps = raw.map((h) => {
      const ids = h.ids;
      const tokens = tgtTokens(ids);
      if (replace) replaceUnknowns(tokens, ids, h.attention, cols, srcTokens, this.config.unk);
      return {
        text: this.config.tgtTokenizer === 'spm' ? check(this._h.detokenize(ids, 1)).text : this.#text(ids, tokens),
        tokens: Array.from(ids),
        srcTokens,
        tgtTokens: tokens,
        rows: ids.length,
        cols,
        score: h.score,
        logProb: h.logProb,
        finished: h.finished,
        attention: h.attention,
        ...(h.memberAttention ? { memberAttention: h.memberAttention } : {}),
      };
    });
    const best = hyps[0];
    return {
      text: best.text, tokens: best.tokens, srcTokens, tgtTokens: best.tgtTokens,
      attention: best.attention, rows: best.tokens.length, cols, score: best.score, hypotheses: hyps,
      words: subword ? this.#words(srcIds ?? this.#sourceIds(srcTokens), best) : null,
      ...(best.memberAttention ? { memberAttention: best.memberAttention } : {}),
    };
  }

  // The word-level view of a subword model's best hypothesis.
  #words(srcIds, best) {
    return this.#wordView(srcIds, best.tokens, this.config.style === 'none' ? null : best.attention);
  }

  /**
   * The word-level view of any alignment between a source and target ids of a subword model (src/model/words.hpp):
   * a word's pieces merged, its weights summed over a source word's pieces and averaged over a target
   * word's rows; the end token is no word. A partial decode gives its words so far. attention: rows x
   * cols (target ids x source ids), or null for the words alone.
   */
  words(srcIds, tgtIds, attention = null) {
    const c = this.config;
    if (c.srcTokenizer !== 'spm' && c.tgtTokenizer !== 'spm')
      throw new AttnseqError('BAD_INPUT', `words(): this model's tokens are already ${c.srcTokenizer === 'char' ? 'letters' : 'words'} (tokenizers ${c.srcTokenizer} / ${c.tgtTokenizer}, not spm)`);
    if (typeof srcIds === 'string' || typeof tgtIds === 'string')
      throw new AttnseqError('BAD_INPUT', 'words() takes token ids (model.tokenize(text).ids), not text');
    const src = toIds(srcIds, c.srcVocabSize, 'words(): source ids'), tgt = toIds(tgtIds, c.tgtVocabSize, 'words(): target ids');
    if (attention !== null) {
      if (!(attention instanceof Float32Array || Array.isArray(attention)))
        throw new AttnseqError('BAD_INPUT', `words(): attention must be a Float32Array or an array of numbers, or null, got ${describe(attention)}`);
      if (attention.length !== src.length * tgt.length)
        throw new AttnseqError('BAD_INPUT', `words(): attention holds ${attention.length} weights, not ${tgt.length} x ${src.length} (target x source ids)`);
    }
    const att = attention === null ? null : Float32Array.from(attention);
    const bad = att ? att.findIndex((w) => !Number.isFinite(w)) : -1;
    if (bad >= 0) throw new AttnseqError('BAD_INPUT', `words(): attention[${bad}] is ${att[bad]}; weights are finite numbers`);
    return this.#wordView(src, tgt, att);
  }

  #wordView(srcIds, tgtIds, attention) {
    const r = check(this._h.words(srcIds, tgtIds, attention));
    const spans = (flat) => Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);
    return {
      source: r.source, target: r.target, sourceSpans: spans(r.sourceSpans), targetSpans: spans(r.targetSpans),
      attention: r.attention, rows: r.target.length, cols: r.source.length,
    };
  }

  // A source's ids from its pieces (translateBatch() gets pieces back for its text inputs).
  #sourceIds(pieces) {
    if (!this.#pieceIds) this.#pieceIds = new Map(this.srcVocab.map((p, i) => [p, i]));
    return Int32Array.from(pieces, (p) => this.#pieceIds.get(p) ?? this.config.unk);
  }

  #text(ids, tokens) {
    const c = this.config;
    const keep = tokens.filter((_, i) => ids[i] !== c.eos && ids[i] !== c.bos && ids[i] !== c.pad);
    // The target side's tokenizer decides: characters join as they are, words with single spaces.
    return c.tgtTokenizer === 'char' ? keep.join('') : keep.join(' ');
  }

  // The engine's flat trace (bindings.cpp, trace_val) as steps of nodes: step k's node i extended
  // node `parent` of step k - 1 (-1: the start) by `token`.
  #beamTrace(t) {
    const steps = [];
    for (let k = 0; k + 1 < t.starts.length; k++) {
      const nodes = [];
      for (let i = t.starts[k]; i < t.starts[k + 1]; i++)
        nodes.push({ parent: t.parent[i], token: t.token[i], text: this.tgtVocab[t.token[i]], logProb: t.logProb[i], score: t.score[i], ended: t.ended[i] === 1 });
      steps.push(nodes);
    }
    return steps;
  }

  #options(o, where) {
    checkOptions(o, where);
    const out = {};
    if (o.trace !== undefined) {
      if (typeof o.trace !== 'boolean') throw new AttnseqError('BAD_INPUT', `option 'trace' must be true or false, got ${describe(o.trace)}`);
      out.trace = o.trace;
    }
    for (const { name: k, kind } of decodeRows()) {  // the engine checks each against its row's range
      if (o[k] === undefined || k === 'trace') continue;
      if (kind === 'boolean') {
        if (typeof o[k] !== 'boolean') throw new AttnseqError('BAD_INPUT', `option '${k}' must be true or false, got ${describe(o[k])}`);
      } else if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) {
        throw new AttnseqError('BAD_INPUT', `option '${k}' must be a finite number, got ${String(o[k])}`);
      }
      out[k] = o[k];
    }
    if (o.prefix !== undefined) {
      out.prefix = typeof o.prefix === 'string' ? knownTargetIds(this, o.prefix, 'prefix') : toIds(o.prefix, this.config.tgtVocabSize, 'prefix');
    }
    return out;
  }
}

/**
 * Models that decode together (src/decode/decode.hpp, Ensemble): at every step each member runs its
 * own decoder on the same prefix and tokens are ranked by the mean of the members' log-probabilities,
 * for greedy decoding, beam search and sampling. translate() and translateBatch() return what a
 * model's do, with `attention` the members' mean and `memberAttention` each member's own (one
 * Float32Array per member, rows x cols like `attention`), per hypothesis and for the best. An ensemble
 * of one is its model, bit for bit. Made by createEnsemble(models); it holds no engine memory of its
 * own (disposing a member makes it unusable).
 */
export class Ensemble {
  constructor(models) {
    this.models = Object.freeze([...models]);
  }
  /** The first member's configuration: the vocabularies and tokenizers every member shares. */
  get config() { return this.models[0].config; }
  get srcVocab() { return this.models[0].srcVocab; }
  get tgtVocab() { return this.models[0].tgtVocab; }
  get size() { return this.models.length; }
  /** One input (text or ids; not an Encoded, which belongs to one model): translate()'s object. */
  translate(input, options = {}) {
    checkOptions(options, 'translate');
    if (input instanceof Encoded)
      throw new AttnseqError('BAD_INPUT', 'an ensemble translates text or ids, not an Encoded (each member encodes the source itself)');
    if (options.trace)
      throw new AttnseqError('BAD_INPUT', "option 'trace': an ensemble's beam is not recorded; trace one model's translate()");
    try {
      return this.#batch([input], options, 'translate')[0];
    } catch (e) {
      // What translate() of a model says: the message without the batch's "inputs[0]: ".
      if (e instanceof AttnseqError && e.index === 0) throw new AttnseqError(e.code, e.detail);
      throw e;
    }
  }
  /**
   * Step-by-step decoding of one input (text or ids) by the ensemble: each member encodes it (the
   * decoder's `encoded`, one Encoded per member, disposed with it), and each step() ranks tokens by the
   * members' mean log-probability. Options as a model's decoder(): topk, prefix, maxLength,
   * temperature, seed.
   */
  decoder(input, options = {}) {
    return this.models[0]._ensembleDecoder(this, input, options);
  }
  /** The first member's tokenize(): every member reads text the same way. */
  tokenize(input, side = 'source') { return this.models[0].tokenize(input, side); }
  /** The first member's detokenize() and words(): every member writes and groups pieces alike. */
  detokenize(ids, side = 'target') { return this.models[0].detokenize(ids, side); }
  words(srcIds, tgtIds, attention) { return this.models[0].words(srcIds, tgtIds, attention); }
  /** translateBatch() a window at a time, as a model's translateStream(). */
  translateStream(inputs, options = {}) {
    checkOptions(options, 'translateStream');
    void this.models.map((m) => m._h);
    const { window = this.models[0]._M.defaultRows, ...rest } = options;
    return translateStream(inputs, rest, window, (batch, o) => this.translateBatch(batch, o));
  }
  /** Many inputs (texts or ids) in one call: result i is what translate(inputs[i], options) returns. */
  translateBatch(inputs, options = {}) {
    if (Array.isArray(inputs))
      for (let k = 0; k < inputs.length; k++)
        if (inputs[k] instanceof Encoded)
          throw entryError('BAD_INPUT', k, 'an ensemble translates text or ids, not an Encoded (each member encodes the source itself)');
    return this.#batch(inputs, options, 'translateBatch');
  }
  /** Disposes every member: an ensemble is its models (a second call does nothing). */
  dispose() { for (const m of this.models) m.dispose(); }
  [Symbol.dispose]() { this.dispose(); }
  /** Whether any member has been disposed (the ensemble then refuses every call with DISPOSED). */
  get disposed() { return this.models.some((m) => m.disposed); }
  #batch(inputs, options, where) {
    const [first, ...others] = this.models;
    return first._translateBatchWith(others, inputs, options, where);
  }
}

/**
 * An ensemble of loaded models (at least 1, at most 16): they must share their vocabularies,
 * tokenizers, special ids and source folding, and may differ in anything else (sizes, cell, attention,
 * int8). A model that differs is refused with BAD_INPUT naming it (`models[2]`) and what differs.
 */
export function createEnsemble(models) {
  if (!Array.isArray(models) || models.length === 0)
    throw new AttnseqError('BAD_INPUT', `createEnsemble() takes a non-empty array of models, got ${describe(models)}`);
  models.forEach((m, i) => {
    if (!(m instanceof Model)) throw new AttnseqError('BAD_INPUT', `createEnsemble(): models[${i}] is not a Model (${describe(m)})`);
    if (m.disposed) throw new AttnseqError('DISPOSED', `createEnsemble(): models[${i}] has been disposed`);
  });
  const [first, ...others] = models;
  const limit = first._M.maxMembers;  // the engine's (src/decode/decode.hpp, kMaxMembers)
  if (models.length > limit)
    throw new AttnseqError('BAD_INPUT', `createEnsemble(): ${models.length} models; an ensemble has at most ${limit}`);
  check(first._M.checkEnsemble(first._h, others.map((m) => m._h)));
  return new Ensemble(models);
}

export class Trainer extends Disposable {
  constructor(M, handle, info) {
    super(handle);
    this._M = M;
    this.parameters = info.parameters;
  }
  /** Runs n optimisation steps; returns { step, loss, tokenAccuracy, gradNorm, lr, tokens, tokensPerSecond }. */
  step(n = 1) {
    if (!Number.isInteger(n)) throw new AttnseqError('BAD_INPUT', 'step(n) takes an integer number of steps');
    const { ok, ...r } = check(this._h.step(n));
    return r;
  }
  /** The model as it is now, as .safetensors bytes. */
  save() { return check(this._h.save()).bytes; }
  /** Optimiser state (Adam moments, step, data position) as bytes. */
  saveState() { return check(this._h.saveState()).bytes; }
  /** Exact match, token accuracy and alignment error rate on n held-out examples of the task. */
  evaluate(n = 200, seed = this._M.heldOutSeed) {
    const { ok, ...r } = check(this._h.evaluate(n, seed));
    return r;
  }
  /** A Model loaded from the current weights (dispose it separately). */
  async model() { return loadModel(this.save()); }
}

export class Encoded extends Disposable {
  constructor(model, handle, ids, tokens) {
    super(handle, [model]);
    this.model = model;
    this.ids = ids;
    this.tokens = tokens;
    this.length = ids.length;
  }
  /** Encoder states h_1..h_n (the keys and values), rows x cols, and the final state h_T. */
  memory() {
    const r = check(this._h.memory());
    return { data: r.data, rows: r.rows, cols: r.cols, finalState: r.finalState };
  }
}

export class Decoder extends Disposable {
  #M;
  #record;
  #names;
  #topk;
  #ptr;
  #base;
  #override;
  constructor(model, enc, handle, maxLength, topk) {
    super(handle, [model, enc]);
    this.model = model;
    this.encoded = enc;
    this.maxLength = maxLength;
    this.topk = topk;
    this.#M = model._M;
    this.#topk = topk;  // validated once by model.decoder(); step() passes it as it is
    this.#names = targetNames(model);
    // The step record's layout, from the engine (src/decode/step_record.hpp): { size, token: { offset,
    // length }, ... } for every field, so that no offset is written here.
    const layout = handle.recordLayout();
    this.#record = { size: layout.size };
    for (const f of layout.fields) this.#record[f.name] = { offset: f.offset, length: f.length };
    // Fixed for the handle's life (wasm/bindings.cpp): read once, then every step is one plain export
    // call with numbers. Float indices into HEAPF32 for the record and the override row.
    this.#ptr = handle.address();
    this.#base = handle.record() / 4;
    this.#override = handle.overrideBuffer() / 4;
  }
  get done() { return this._h.done(); }
  get length() { return this._h.length(); }
  /**
   * One decoder step. options.force: a token id or string to emit; options.attention: a weight row to
   * use. The record returned is the caller's: its arrays are views of one fresh copy of the engine's
   * step record (one ArrayBuffer per step), never of wasm memory, so later steps leave it unchanged.
   */
  step(options) {
    let forced = -1, override = null;
    if (options !== undefined) {  // no options: nothing to check, and no object made for them
      checkStepOptions(options);
      const m = this.model;
      if (options.force !== undefined) {
        forced = typeof options.force === 'string' ? knownTargetIds(m, options.force, 'force', true)[0] : options.force;
        if (!Number.isInteger(forced) || forced < 0 || forced >= m.config.tgtVocabSize)
          throw new AttnseqError('BAD_INPUT', `force must be a target token id in [0, ${m.config.tgtVocabSize}) or a known token`);
      }
      if (options.attention !== undefined) override = overrideRow(options.attention, this.encoded.length);
    }
    const h = this._h;  // DISPOSED before anything touches the handle's memory
    const M = this.#M;
    if (override) M.HEAPF32.set(override, this.#override);  // the engine checks the weights
    if (M._attnseq_decoder_step(this.#ptr, forced, this.#topk, override ? 1 : 0) !== 0)
      throw new AttnseqError(h.lastErrorCode(), h.lastErrorMessage());
    // Copy the step's record out of wasm memory in one slice (HEAPF32 re-read: memory may have grown)
    // and hand out views of that copy at the engine's offsets.
    const R = this.#record, base = this.#base;
    const rec = M.HEAPF32.slice(base, base + R.size);
    const buf = rec.buffer;
    const names = this.#names;
    const token = rec[R.token.offset];
    const k = rec[R.topkCount.offset], ids = R.topkIds.offset, probs = R.topkProbs.offset;
    const topk = [];
    for (let i = 0; i < k; i++) {
      const id = rec[ids + i];
      topk.push({ token: id, text: names[id] ?? tokenName(names, id), p: rec[probs + i] });
    }
    const { attention: a, scores: s, query: q, context: c, logits: l } = R;
    return {
      index: rec[R.index.offset], token, text: names[token] ?? tokenName(names, token), done: rec[R.done.offset] !== 0,
      forced: rec[R.forced.offset] !== 0, logProb: rec[R.logProb.offset],
      attention: new Float32Array(buf, 4 * a.offset, a.length), scores: new Float32Array(buf, 4 * s.offset, s.length),
      query: new Float32Array(buf, 4 * q.offset, q.length), context: new Float32Array(buf, 4 * c.offset, c.length),
      logits: new Float32Array(buf, 4 * l.offset, l.length), topk,
    };
  }
}

/**
 * An ensemble's step-by-step decoder (Ensemble.decoder()). step() returns what a model's Decoder.step()
 * does, with `attention` the members' mean, `logits` the members' mean log-probabilities (the scores
 * the token was chosen by; topk's p are their exponentials) and no query, context or scores of its
 * own: those are each member's, in `members[m]` ({ attention, scores, query, context, logits }).
 * options.force emits a token; options.attention (a what-if) is every member's attention at this
 * step, each reading its own encoder states with it, so that the mean shown is that row.
 */
export class EnsembleDecoder extends Disposable {
  #M;
  #record;
  #names;
  #override;  // the override row's float index into HEAPF32 (fixed for the handle's life)
  constructor(ensemble, encs, handle, maxLength, topk) {
    super(handle, ensemble.models);
    this.ensemble = ensemble;
    this.encoded = Object.freeze(encs);
    this.maxLength = maxLength;
    this.topk = topk;
    this.#M = ensemble.models[0]._M;
    this.#names = targetNames(ensemble.models[0]);
    const layout = handle.recordLayout();
    const spans = (fields, base) => Object.fromEntries(fields.map((f) => [f.name, { offset: base + f.offset, length: f.length }]));
    this.#record = { size: layout.size, mean: spans(layout.fields, 0), members: layout.members.map((m) => spans(m.fields, m.offset)) };
    this.#override = handle.overrideBuffer() / 4;
  }
  get done() { return this._h.done(); }
  get length() { return this._h.length(); }
  dispose() {
    for (const e of this.encoded) e.dispose();
    super.dispose();
  }
  /** One step of the ensemble (options.force: a token id or string to emit). */
  step(options) {
    let forced = -1, override = null;
    const m = this.ensemble.models[0];
    if (options !== undefined) {
      checkStepOptions(options);
      if (options.force !== undefined) {
        forced = typeof options.force === 'string' ? knownTargetIds(m, options.force, 'force', true)[0] : options.force;
        if (!Number.isInteger(forced) || forced < 0 || forced >= m.config.tgtVocabSize)
          throw new AttnseqError('BAD_INPUT', `force must be a target token id in [0, ${m.config.tgtVocabSize}) or a known token`);
      }
      if (options.attention !== undefined) override = overrideRow(options.attention, this.encoded[0].length);
    }
    const h = this._h;
    for (const e of this.encoded) void e._h;  // DISPOSED if an encoding was disposed
    const R = this.#record, M = this.#M;
    if (override) M.HEAPF32.set(override, this.#override);  // the engine checks the weights
    if (h.step(forced, this.topk, override !== null) !== 0) throw new AttnseqError(h.lastErrorCode(), h.lastErrorMessage());
    const base = h.record() / 4;
    const rec = M.HEAPF32.slice(base, base + R.size);
    const buf = rec.buffer;
    const view = (s) => new Float32Array(buf, 4 * s.offset, s.length);
    const mean = R.mean, names = this.#names;
    const token = rec[mean.token.offset];
    const topk = [];
    for (let i = 0; i < rec[mean.topkCount.offset]; i++) {
      const id = rec[mean.topkIds.offset + i];
      topk.push({ token: id, text: names[id] ?? tokenName(names, id), p: rec[mean.topkProbs.offset + i] });
    }
    return {
      index: rec[mean.index.offset], token, text: names[token] ?? tokenName(names, token), done: rec[mean.done.offset] !== 0,
      forced: rec[mean.forced.offset] !== 0, logProb: rec[mean.logProb.offset],
      attention: view(mean.attention), logits: view(mean.logits), topk,
      members: R.members.map((s) => ({ attention: view(s.attention), scores: view(s.scores), query: view(s.query), context: view(s.context), logits: view(s.logits) })),
    };
  }
}

// A step's attention override (options.attention) as the engine reads it: T weights (their values the
// engine checks), copied into a Float32Array.
function overrideRow(attention, T) {
  const row = Float32Array.from(attention);
  if (row.length !== T) throw new AttnseqError('BAD_INPUT', `attention override has ${row.length} weights; the source has ${T}`);
  return row;
}

// What the engine says of an Encoded given to a model other than its own (src/model/decoder.cpp), which
// translateBatch() says itself: it passes ids, not the Encoded.
const FOREIGN_SOURCE = 'this source was encoded by another model; encode it with the model that decodes it';

// A target token's display text: its vocabulary entry, or `#id` for an ids-only model. The `#id`
// strings are made once per model and id (kept in the model's array), not once per step; the array
// is dense from the start (filled with undefined), so that a lookup by id stays a fast element read.
const idNames = new WeakMap();
// A decoder's topk option: 5 by default, an integer in [0, the engine's limit].
function topkOption(M, options) {
  const topk = options.topk ?? 5;
  const maxTopk = M.maxTopk;  // the engine's limit (src/decode/step_record.hpp)
  if (!Number.isInteger(topk) || topk < 0 || topk > maxTopk)
    throw new AttnseqError('BAD_INPUT', `option 'topk' is ${describe(topk)}; it must be an integer in [0, ${maxTopk}]`);
  return topk;
}

function targetNames(model) {
  if (model.tgtVocab) return model.tgtVocab;
  let a = idNames.get(model);
  if (!a) idNames.set(model, (a = new Array(model.config.tgtVocabSize).fill(undefined)));
  return a;
}
function tokenName(names, id) {
  return Object.isFrozen(names) ? names[id] : (names[id] = `#${id}`);
}

// A window's results are held until they are taken: besides `window` inputs, a window ends before the
// attention weights its results may hold (source length x the most rows x hypotheses, an upper bound)
// pass this many floats (64 MiB), so that long inputs come fewer at a time.
const STREAM_FLOATS = 1 << 24;
const MAX_WINDOW = 1 << 16;

/**
 * translateStream() of a model or a pool: reads `inputs` a window at a time, runs `batch(window,
 * options)` (translateBatch) on it and yields its results in order; what is held at once is one
 * window's inputs and results. An entry's error names its index in the whole stream.
 */
export function translateStream(inputs, options, window, batch) {
  if (!Number.isInteger(window) || window < 1 || window > MAX_WINDOW)
    throw new AttnseqError('BAD_INPUT', `option 'window' is ${describe(window)}; it must be an integer in [1, ${MAX_WINDOW}]`);
  const iterable = inputs !== null && typeof inputs === 'object' && (typeof inputs[Symbol.asyncIterator] === 'function' ||
    typeof inputs[Symbol.iterator] === 'function');
  if (!iterable || inputs instanceof Encoded)
    throw new AttnseqError('BAD_INPUT', `translateStream() takes an Iterable or an AsyncIterable of inputs, got ${describe(inputs)}`);
  const hyps = options.numHypotheses ?? options.beam ?? 1;
  const cost = (x) => {
    const n = typeof x === 'string' ? x.length : x instanceof Encoded ? x.length : (x?.length ?? 1);
    return n * (options.maxLength ?? 2 * n + 10) * hyps;
  };
  return (async function* () {
    const it = typeof inputs[Symbol.asyncIterator] === 'function' ? inputs[Symbol.asyncIterator]() : inputs[Symbol.iterator]();
    let start = 0, done = false;
    try {
      while (!done) {
        const win = [];
        let floats = 0;
        while (win.length < window) {
          const r = await it.next();
          if (r.done) { done = true; break; }
          win.push(r.value);
          floats += Number.isFinite(cost(r.value)) ? cost(r.value) : 0;
          if (floats >= STREAM_FLOATS) break;
        }
        if (!win.length && start > 0) break;  // (no input at all: one empty batch still checks the options)
        let results;
        try {
          results = await batch(win, options);
        } catch (e) {
          if (e instanceof AttnseqError && e.index !== undefined)
            throw entryError(e.code, start + e.index, e.detail);
          throw e;
        }
        start += win.length;
        win.length = 0;
        for (let i = 0; i < results.length; i++) {
          const r = results[i];
          results[i] = undefined;  // given away: not held while the caller works on it
          yield r;
        }
      }
    } finally {
      if (!done) await it.return?.();
    }
  })();
}
