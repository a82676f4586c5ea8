// Public types of the attnseq npm package (hand-written; see README "JavaScript API").
/// <reference lib="esnext.disposable" />
/// <reference lib="dom" />

/** Stable error codes carried by AttnseqError.code. */
export type AttnseqErrorCode =
  | 'BAD_INPUT' | 'BAD_CHECKPOINT' | 'TOO_LONG' | 'DISPOSED' | 'LOAD_FAILED' | 'NOT_LOADED'
  | 'NOT_ENCODED' | 'OUT_OF_MEMORY' | 'ALREADY_INITIALISED' | 'INTERNAL' | 'WORKER';

/** Every AttnseqErrorCode with what it means. */
export const ERROR_CODES: Readonly<Record<AttnseqErrorCode, string>>;

export class AttnseqError extends Error {
  readonly name: 'AttnseqError';
  readonly code: AttnseqErrorCode;
  /** translateBatch() (a model's or a pool's): the index in `inputs` of the entry refused. */
  readonly index?: number;
  /** With `index`: the message without its "inputs[i]: " prefix. */
  readonly detail?: string;
  constructor(code: AttnseqErrorCode, message: string);
}

export interface InitOptions {
  /** Returns the URL of a file the engine needs ('attnseq-core.wasm'), e.g. on a CDN. */
  locateFile?: ((file: string) => string) | undefined;
  /** The .wasm bytes, when the caller already has them. */
  wasmBinary?: Uint8Array | ArrayBuffer | undefined;
  /**
   * 'auto' (the default): where this JavaScript engine compiles relaxed SIMD, the engine's largest
   * products (the packed f32 product and training's backward products, with fused multiply-add, and
   * the int8 product, with the 8-bit dot product and 7-bit activations) come from
   * attnseq-relaxed.wasm, after the engine has held them to its own on fixed inputs (all of them, or
   * none is used); else, or if anything fails, the plain
   * SIMD products, and init() still succeeds. false: the plain products always (the file is not read).
   * buildInfo() says which run, and why. An int8 model decodes a little differently on the relaxed
   * path (its activations have 7 bits, not 16: README, "Instruction sets").
   */
  relaxedSimd?: 'auto' | false | undefined;
}
/**
 * Optional; call before the first loadModel() to change where the .wasm comes from. Rejects with
 * AttnseqError: LOAD_FAILED when the .wasm cannot be read or is not the engine's, BAD_INPUT for a
 * wrong type or a detached buffer. A failed init() changes nothing (it may be called again).
 */
export function init(options?: InitOptions): Promise<void>;

export type ModelSource = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | Response | URL | string;
export interface LoadOptions {
  /**
   * 'int8': hold the model's matrices as int8 with a scale per row (as `attnseq quantize` writes
   * them): about a quarter of the weight memory, and int8 products in encode and step.
   */
  quantize?: 'int8' | undefined;
}
/**
 * Loads a .safetensors checkpoint (bytes, a fetch Response, a URL, or a file path in Node; the
 * http:/https: scheme in any case), f32, f16, bf16 or int8. BAD_INPUT for a Response whose body was
 * already read, a detached buffer or a bad option, LOAD_FAILED for what cannot be read,
 * BAD_CHECKPOINT for a malformed file (an int8 matrix without its scales included).
 */
export function loadModel(source: ModelSource, options?: LoadOptions): Promise<Model>;

export interface ModelConfig {
  readonly cell: 'gru' | 'lstm';
  readonly style: 'luong' | 'bahdanau' | 'none';
  readonly score: 'dot' | 'general' | 'additive';
  readonly inputFeeding: boolean;
  readonly bidirectional: boolean;
  readonly bridge: boolean;
  /** The output layer's weight is the target embedding matrix (no decoder.out.weight in the file). */
  readonly tieEmbeddings: boolean;
  /** The additive score has a bias on its query projection, v^T tanh(W_q s + b_q + W_k h_i). */
  readonly attentionQueryBias: boolean;
  readonly layers: number;
  readonly srcVocabSize: number;
  readonly tgtVocabSize: number;
  readonly srcEmbedding: number;
  readonly tgtEmbedding: number;
  readonly encoderHidden: number;
  readonly encoderOutput: number;
  readonly hidden: number;
  readonly embedding: number;
  readonly attentionSize: number;
  /** Both sides' tokenizer when they agree; 'mixed' when they differ (see srcTokenizer, tgtTokenizer). */
  readonly tokenizer: 'char' | 'word' | 'spm' | 'ids' | 'mixed';
  /**
   * How source text becomes tokens: code points ('char'), whitespace-separated words ('word'),
   * SentencePiece subword pieces ('spm', the model carries its .model), or none ('ids').
   */
  readonly srcTokenizer: 'char' | 'word' | 'spm' | 'ids';
  /** How the target is split and its text joined: 'char' joins as is, 'word' with single spaces, 'spm' as SentencePiece decodes. */
  readonly tgtTokenizer: 'char' | 'word' | 'spm' | 'ids';
  /** Case fold the source applies before lookup ('upper': "knight" reads as "KNIGHT"); 'keep' for none. */
  readonly srcCase: 'keep' | 'upper' | 'lower';
  /** How a character source reads Hangul: each syllable as itself, or as its conjoining jamo (NFD). */
  readonly srcHangul: 'syllables' | 'jamo';
  readonly pad: number;
  readonly bos: number;
  readonly eos: number;
  readonly unk: number;
  readonly parameters: number;
  /** 'int8' when the model's matrices are held as int8 (an int8 file, or loadModel's quantize option). */
  readonly quantization: 'none' | 'int8';
  readonly name: string | null;
  readonly task: string | null;
  /** Free-form checkpoint metadata (name, task, description, ...). */
  readonly metadata: Readonly<Record<string, string>>;
}

/** Text, or token ids. */
export type Input = string | ArrayLike<number>;

export interface DecodeOptions {
  /** Forced first target tokens (text or ids). Text with a token the target vocabulary lacks is BAD_INPUT naming it. */
  prefix?: Input | undefined;
  /**
   * > 0 samples from softmax(logits / temperature). However small, it never overflows: a temperature
   * whose 32-bit reciprocal is infinite (below about 2.9e-39) decodes greedily, its limit.
   */
  temperature?: number | undefined;
  /** Sampling seed. */
  seed?: number | undefined;
  /** Most target tokens, EOS included (default 2 * source length + 10; 0 = that default). */
  maxLength?: number | undefined;
  /** > 0: at most ceil(maxLengthRatio * source tokens) tokens before EOS (maxLength still holds; default 0 = no such limit). */
  maxLengthRatio?: number | undefined;
  /**
   * > 0: never choose a token that would repeat a sequence of this many tokens already in the
   * hypothesis (EOS and forced tokens excepted): a guard against loops (default 0 = off).
   */
  noRepeatNgram?: number | undefined;
}
export interface DecoderOptions extends DecodeOptions {
  /** How many of the most likely next tokens each step reports (default 5, 0 for none). */
  topk?: number | undefined;
}
export interface TranslateOptions extends DecodeOptions {
  /** Beam width (default 1 = greedy). */
  beam?: number | undefined;
  /** Beam ranking: log p / length^lengthPenalty (default 1). */
  lengthPenalty?: number | undefined;
  /**
   * Beam search (beam >= 2) of a model with attention: the ranking adds coveragePenalty times the sum,
   * over source tokens, of log min(attention the token received, 1), GNMT's coverage penalty: a
   * hypothesis that leaves source tokens unread ranks lower (default 0 = none).
   */
  coveragePenalty?: number | undefined;
  /** Hypotheses returned (default: all of the beam). */
  numHypotheses?: number | undefined;
  /** Replace each emitted <unk> by the source token with the highest attention weight. */
  replaceUnknowns?: boolean | undefined;
}
export interface TraceOption {
  /**
   * Beam search (beam >= 2) only: record the hypotheses of every step in Translation.beamTrace. One
   * model's translate() only (not a batch, not an ensemble: BAD_INPUT). Changes no result.
   */
  trace?: boolean | undefined;
}
/** One hypothesis of a beam search step (Translation.beamTrace). */
export interface BeamNode {
  /** The node of the step before that this one extends (-1 at step 0: the start). Only live nodes are extended. */
  parent: number;
  token: number;
  text: string;
  /** log p of the whole hypothesis so far, and what the beam ranks by: logProb / length^lengthPenalty. */
  logProb: number;
  score: number;
  /** Finished at this step (EOS, or the last step allowed); the others live on into the next step. */
  ended: boolean;
}
export interface TranslateBatchOptions extends TranslateOptions {
  /**
   * Decoder rows (inputs x beam) per group of inputs of similar length, default 256, at most 1024.
   * Changes speed and memory only, never a result.
   */
  maxRows?: number | undefined;
}

export interface TranslateStreamOptions extends TranslateBatchOptions {
  /**
   * Most inputs read and translated together (one translateBatch() call), an integer in [1, 65536];
   * default 256 on a model, 256 per Worker on a pool. A window also ends early when its results'
   * attention weights could pass 64 MiB (long inputs). Changes speed and memory only, never a result.
   */
  window?: number | undefined;
}

export interface Hypothesis {
  text: string;
  tokens: number[];
  srcTokens: string[];
  tgtTokens: string[];
  rows: number;
  cols: number;
  score: number;
  logProb: number;
  finished: boolean;
  /** rows x cols, row-major: row k is the step that produced tokens[k]. An ensemble's: the members' mean. */
  attention: Float32Array;
  /** An ensemble of more than one model (createEnsemble): each member's own attention, rows x cols like `attention`. */
  memberAttention?: Float32Array[];
}
/**
 * The best hypothesis of a subword (spm) model shown as words: a word's pieces merged (a piece that
 * starts with U+2581 starts a word; a piece of punctuation only is a word of its own).
 */
export interface WordView {
  /** The source words, as text. */
  source: string[];
  /** The target words, as text (the end token is not a word). */
  target: string[];
  /** [first piece, piece count] of each source word, into srcTokens. */
  sourceSpans: [number, number][];
  /** [first piece, piece count] of each target word, into tgtTokens. */
  targetSpans: [number, number][];
  /** rows x cols, row-major: a source word's weight is the sum of its pieces', a target word's row the mean of its pieces' rows. Null for style 'none'. */
  attention: Float32Array | null;
  rows: number;
  cols: number;
}
export interface Translation {
  text: string;
  tokens: number[];
  srcTokens: string[];
  tgtTokens: string[];
  attention: Float32Array;
  rows: number;
  cols: number;
  score: number;
  hypotheses: Hypothesis[];
  /** The word-level view when either side is subword pieces ('spm'); null for other models, whose tokens are already words or letters. */
  words: WordView | null;
  /** An ensemble's (createEnsemble): each member's own attention for the best hypothesis. */
  memberAttention?: Float32Array[];
  /** With option trace: the beam's hypotheses at every step, best first, each pointing at its parent. */
  beamTrace?: BeamNode[][];
}

/**
 * One decoder step. The arrays are views of one copy of the engine's step record made for this step
 * (one ArrayBuffer per step), never of wasm memory: later steps and memory growth leave them as they are.
 */
export interface StepResult extends StepChoice {
  /** Raw scores before the softmax. */
  scores: Float32Array;
  /** The query Q (the decoder state the scores were computed with). */
  query: Float32Array;
  /** The context vector c_k = sum_i w_i h_i. */
  context: Float32Array;
}
/** What every step says, of one model or of an ensemble: the token chosen, how, and what it was chosen from. */
export interface StepChoice {
  index: number;
  token: number;
  text: string;
  done: boolean;
  forced: boolean;
  logProb: number;
  /** Softmax weights over the source (sum to 1). */
  attention: Float32Array;
  logits: Float32Array;
  topk: { token: number; text: string; p: number }[];
}
export interface StepOptions {
  /** Emit this token (id or token string) instead of the model's choice. A string must be exactly one known target token (else BAD_INPUT). */
  force?: number | string | undefined;
  /** Use this weight row (source length, non-negative, renormalised) instead of the computed attention. */
  attention?: ArrayLike<number> | undefined;
}

interface Disposable_ {
  readonly disposed: boolean;
  dispose(): void;
  [Symbol.dispose](): void;
}

export class Model implements Disposable_ {
  private constructor();
  readonly config: ModelConfig;
  readonly srcVocab: readonly string[] | null;
  readonly tgtVocab: readonly string[] | null;
  readonly disposed: boolean;
  tokenize(input: Input, side?: 'source' | 'target'): { ids: Int32Array; tokens: string[] };
  /**
   * The word-level view of an alignment of a subword ('spm') model: source and target ids (a partial
   * decode gives its words so far) and their rows x cols weights, or null for the words alone.
   * BAD_INPUT for a model with no spm side, ids outside a vocabulary, or weights of another size.
   */
  /** Ids -> text as the side's tokenizer writes it (pieces decoded, characters joined, words spaced), without padding, start and end tokens. */
  detokenize(ids: ArrayLike<number>, side?: 'source' | 'target'): string;
  words(srcIds: ArrayLike<number>, tgtIds: ArrayLike<number>, attention?: Float32Array | number[] | null): WordView;
  encode(input: Input): Encoded;
  decoder(enc: Encoded, options?: DecoderOptions): Decoder;
  translate(input: Input | Encoded, options?: TranslateOptions & TraceOption): Translation;
  /**
   * Many inputs in one call into the engine: result i deep-equals translate(inputs[i], options), and
   * each decoder step is one product over every input's rows. [] for []. A bad entry throws before any
   * decoding, its message naming it ("inputs[3]: " and what translate() would say; error.index 3).
   */
  translateBatch(inputs: ReadonlyArray<Input | Encoded>, options?: TranslateBatchOptions): Translation[];
  /**
   * translateBatch() a window at a time, within bounded memory: the results of `inputs`, read as the
   * results are asked for, in input order, each what translate() returns. A bad entry throws (from
   * the iterator) naming its index in the whole stream, after the earlier windows' results.
   */
  translateStream(inputs: Iterable<Input | Encoded> | AsyncIterable<Input | Encoded>, options?: TranslateStreamOptions): AsyncIterableIterator<Translation>;
  dispose(): void;
  [Symbol.dispose](): void;
}

/**
 * Models that decode together: at each step tokens are ranked by the mean of the members'
 * log-probabilities (greedy, beam search and sampling). `attention` is the members' mean and
 * `memberAttention` each one's own. An ensemble of one translates as its model, bit for bit.
 */
export class Ensemble {
  private constructor();
  readonly models: readonly Model[];
  /** The first member's: the vocabularies and tokenizers every member shares. */
  readonly config: ModelConfig;
  readonly srcVocab: readonly string[] | null;
  readonly tgtVocab: readonly string[] | null;
  readonly size: number;
  /** Text or ids (each member encodes the source itself; an Encoded belongs to one model and is refused). */
  translate(input: Input, options?: TranslateOptions): Translation;
  translateBatch(inputs: ReadonlyArray<Input>, options?: TranslateBatchOptions): Translation[];
  /** translateBatch() a window at a time, as Model.translateStream(). */
  translateStream(inputs: Iterable<Input> | AsyncIterable<Input>, options?: TranslateStreamOptions): AsyncIterableIterator<Translation>;
  /** The first member's tokenize() (every member reads text alike). */
  tokenize(input: Input, side?: 'source' | 'target'): { ids: Int32Array; tokens: string[] };
  /** The first member's detokenize() and words() (every member writes and groups pieces alike). */
  detokenize(ids: ArrayLike<number>, side?: 'source' | 'target'): string;
  words(srcIds: ArrayLike<number>, tgtIds: ArrayLike<number>, attention?: Float32Array | number[] | null): WordView;
  /**
   * Step-by-step decoding of one input (text or ids): each member encodes it (`encoded`, disposed with
   * the decoder) and each step ranks tokens by the members' mean log-probability.
   */
  decoder(input: Input, options?: DecoderOptions): EnsembleDecoder;
  /** Disposes every member: an ensemble is its models (a second call does nothing). */
  dispose(): void;
  [Symbol.dispose](): void;
  /** Whether any member has been disposed (every call is then refused with DISPOSED). */
  readonly disposed: boolean;
}
/** One member's own numbers at an ensemble's step (its sizes: members may differ). */
export interface MemberStep {
  attention: Float32Array;
  scores: Float32Array;
  query: Float32Array;
  context: Float32Array;
  logits: Float32Array;
}
/**
 * A step of an ensemble: `attention` is the members' mean, `logits` the members' mean log-probabilities
 * (what the token was chosen by; topk's p are their exponentials), and each member's own numbers are in
 * `members`.
 */
export interface EnsembleStepResult extends StepChoice {
  members: MemberStep[];
}
export class EnsembleDecoder implements Disposable_ {
  private constructor();
  readonly ensemble: Ensemble;
  /** The input as each member encoded it (models[i]'s in encoded[i]). */
  readonly encoded: readonly Encoded[];
  readonly maxLength: number;
  readonly topk: number;
  readonly done: boolean;
  readonly length: number;
  readonly disposed: boolean;
  /**
   * options.force emits a token; options.attention (a what-if) is every member's attention at this
   * step, each reading its own encoder states with it, so that the mean shown is that row.
   */
  step(options?: StepOptions): EnsembleStepResult;
  dispose(): void;
  [Symbol.dispose](): void;
}
/**
 * An ensemble of loaded models (1 to 16) sharing their vocabularies, tokenizers, special ids and source
 * folding (they may differ in sizes, cell, attention, int8). BAD_INPUT naming the model that differs
 * (`models[2]`) and what differs; DISPOSED for a disposed model.
 */
export function createEnsemble(models: ReadonlyArray<Model>): Ensemble;

export interface PoolOptions extends LoadOptions {
  /** Workers, each with its own engine and copy of the model: an integer in [1, 64]; default every core. */
  workers?: number | undefined;
}
/**
 * Batch translation on several cores: Workers (module Workers in a browser, worker_threads in Node)
 * share each call's inputs. source: a Model from loadModel() (each Worker loads the checkpoint it was
 * loaded from, int8 if it was; DISPOSED once it is disposed) or what loadModel() takes. BAD_INPUT for a
 * bad option, and loadModel()'s errors for the source; WORKER when a Worker cannot start.
 */
export function createPool(source: Model | ModelSource, options?: PoolOptions): Promise<Pool>;
export class Pool implements Disposable_ {
  private constructor();
  /** How many Workers the pool has. */
  readonly workers: number;
  readonly disposed: boolean;
  /**
   * Resolves to what model.translateBatch(inputs, options) returns, bit for bit. Texts or ids only
   * (an Encoded stays with its model's thread). A bad entry rejects with model.translateBatch()'s
   * error, naming its index in `inputs`; the pool keeps working.
   */
  translateBatch(inputs: ReadonlyArray<Input>, options?: TranslateBatchOptions): Promise<Translation[]>;
  /** model.translateStream() on the Workers: each window is shared among them. */
  translateStream(inputs: Iterable<Input> | AsyncIterable<Input>, options?: TranslateStreamOptions): AsyncIterableIterator<Translation>;
  /** Stops the Workers: what is running and every later call rejects with DISPOSED. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Refuses every call with DISPOSED once it or its model is disposed (dispose() always works). */
export class Encoded implements Disposable_ {
  private constructor();
  readonly model: Model;
  readonly ids: Int32Array;
  readonly tokens: string[];
  readonly length: number;
  readonly disposed: boolean;
  /** Encoder states h_1..h_n (keys = values), rows x cols, and the encoder's final state. */
  memory(): { data: Float32Array; rows: number; cols: number; finalState: Float32Array };
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Refuses every call with DISPOSED once it, its model or its Encoded is disposed (dispose() always works). */
export class Decoder implements Disposable_ {
  private constructor();
  readonly model: Model;
  readonly encoded: Encoded;
  readonly maxLength: number;
  /** How many top next tokens each step reports. */
  readonly topk: number;
  readonly done: boolean;
  readonly length: number;
  readonly disposed: boolean;
  step(options?: StepOptions): StepResult;
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface TrainerModelOptions {
  style?: 'luong' | 'bahdanau' | 'none' | undefined;
  score?: 'dot' | 'general' | 'additive' | undefined;
  cell?: 'gru' | 'lstm' | undefined;
  hidden?: number | undefined;
  embedding?: number | undefined;
  layers?: number | undefined;
  bidirectional?: boolean | undefined;
  inputFeeding?: boolean | undefined;
  bridge?: boolean | undefined;
  /** The output layer shares the target embedding matrix (embedding must equal hidden). */
  tieEmbeddings?: boolean | undefined;
  attentionSize?: number | undefined;
  /** The additive score gets a bias on its query projection (score 'additive' only). */
  attentionQueryBias?: boolean | undefined;
  name?: string | undefined;
}
export interface TrainerOptions {
  /** A built-in task, or your own pairs as TSV text (source<TAB>target per line). */
  task?:
    | 'dates' | 'en-ko' | 'reverse' | 'copy'
    | {
        tsv: string | undefined;
        /** Both sides (default 'word'). */
        tokenizer?: 'char' | 'word' | undefined;
        /** Overrides `tokenizer` for one side, e.g. 'char' source and 'word' target for spelling -> phonemes. */
        srcTokenizer?: 'char' | 'word' | undefined;
        tgtTokenizer?: 'char' | 'word' | undefined;
      };
  model?: TrainerModelOptions | undefined;
  batchSize?: number | undefined;
  lr?: number | undefined;
  steps?: number | undefined;
  warmup?: number | undefined;
  clip?: number | undefined;
  seed?: number | undefined;
  /** reverse/copy: sequence lengths. */
  minLength?: number | undefined;
  maxLength?: number | undefined;
}
export interface TrainStepReport {
  step: number;
  loss: number;
  tokenAccuracy: number;
  gradNorm: number;
  lr: number;
  tokens: number;
  tokensPerSecond: number;
}
export interface TrainEvaluation {
  n: number;
  exactMatch: number;
  tokenAccuracy: number;
  aer: number;
}
export class Trainer implements Disposable_ {
  private constructor();
  readonly parameters: number;
  readonly disposed: boolean;
  step(n?: number): TrainStepReport;
  save(): Uint8Array;
  saveState(): Uint8Array;
  evaluate(n?: number, seed?: number): TrainEvaluation;
  model(): Promise<Model>;
  dispose(): void;
  [Symbol.dispose](): void;
}
/** Creates a model from a configuration and trains it in the engine. */
export function createTrainer(options?: TrainerOptions): Promise<Trainer>;

export function memoryStats(): Promise<{ heapBytes: number; stackPointer: number; memoryBytes: number }>;
export function buildInfo(): Promise<string>;
/** The most Workers a pool has (createPool's `workers`). */
export const MAX_WORKERS: number;
/** One decode option, as the engine's table has it (src/decode/options.hpp). */
export interface DecodeOptionInfo {
  readonly name: string;
  readonly kind: 'integer' | 'number' | 'boolean';
  readonly min: number;
  readonly max: number;
  readonly default: number;
  /** What the range leaves unsaid ("0 = automatic ..."), or "". */
  readonly note: string;
  /** The command lines' flag ("--length-penalty"; "" for none) and its value's name ("A"). */
  readonly flag: string;
  readonly metavar: string;
  readonly help: string;
  /** Where it applies: 'one' translate(), 'batch' translateBatch() and translateStream(), 'step' decoder(), 'eval' the command line's eval. */
  readonly scope: readonly ('one' | 'batch' | 'step' | 'eval')[];
}
/** The decode options: names, kinds, ranges, defaults and help, from the engine's one table. */
export function decodeOptions(): Promise<readonly DecodeOptionInfo[]>;

export interface AlignmentLike {
  srcTokens: string[];
  tgtTokens: string[];
  attention: Float32Array;
  rows: number;
  cols: number;
}
/** Header row of source tokens, then a row per target token; fields quoted as RFC 4180 says (CR too). */
export function alignmentToCSV(r: AlignmentLike): string;
export function alignmentToJSON(r: AlignmentLike): string;
/** "i-j" links, the heaviest source i of each target j; a row without weight links nothing ('' for style 'none'). */
export function alignmentToPharaoh(r: AlignmentLike): string;

/** CMUdict's 39 stressless ARPAbet phonemes and their IPA (General American; AH is ə, ER is ɚ). */
export const ARPABET_IPA: Readonly<Record<string, string>>;
/** IPA of an ARPAbet phoneme string ("N AY T" -> "naɪt"); null when a token is not one of the 39. */
export function toIPA(phonemes: string): string | null;
/** Whether a target vocabulary is ARPAbet (every token but the specials one of the 39). */
export function speaksARPAbet(targetTokens: readonly string[] | null): boolean;
/** A piece of text: a word (letters, with apostrophes between them) or what lies between words. */
export interface TextPart {
  readonly text: string;
  /** UTF-16 offsets into the text. */
  readonly start: number;
  readonly end: number;
  readonly word: boolean;
}
/** text split into words and what lies between them, in order, covering it whole. */
export function splitWords(text: string): TextPart[];
export interface PronouncedWord extends TextPart {
  readonly word: true;
  /** Where the pronunciation came from: the lexicon given, or the model. */
  readonly source: 'lexicon' | 'model';
  /** The pronunciation as the model writes it ("N AY T"); a lexicon word's first. */
  readonly phonemes: string;
  /** Every pronunciation the lexicon gives for the word, or [phonemes]. */
  readonly alternatives: readonly string[];
  /** IPA: an ARPAbet model's through toIPA, an IPA model's phones joined; null otherwise. */
  readonly ipa: string | null;
  /** The model's result for the word (its alignment too); null for a lexicon word. */
  readonly translation: Translation | null;
}
export type Lexicon = ReadonlyMap<string, string | readonly string[]>;
export interface PronounceOptions extends TranslateOptions {
  /**
   * Words and their pronunciations, consulted before the model (a word as written, lower-cased,
   * upper-cased); several lexicons: the first that has a word decides (a user's before a shipped one).
   */
  lexicon?: Lexicon | readonly Lexicon[] | undefined;
}
/**
 * A lexicon file's text (WORD<TAB>PRONUNCIATION lines; a word on several lines has several
 * pronunciations) as a Map. BAD_INPUT naming `name` and the line for a malformed line.
 */
export function parseLexicon(text: string, name?: string): Map<string, string[]>;
export interface Pronunciation {
  readonly text: string;
  readonly parts: ReadonlyArray<PronouncedWord | (TextPart & { readonly word: false })>;
}
/**
 * Every word of text pronounced by a model that reads letters: a lexicon word as the lexicon says,
 * the others by the model (each distinct word once, in one batch); digits, spaces and punctuation
 * stay as written.
 */
export function pronounce(model: Model | Ensemble, text: string, options?: PronounceOptions): Pronunciation;
/** Many texts: every text's words in one batch. */
export function pronounce(model: Model | Ensemble, texts: readonly string[], options?: PronounceOptions): Pronunciation[];
