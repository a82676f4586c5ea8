// Types of attnseq-models (hand-written; see its README).
import type { Model, Ensemble, LoadOptions, DecodeOptions } from 'attnseq';

export interface ModelEntry {
  /** What load() takes: 'g2p-en', 'g2p-ko', 'en-de', 'dates', ... */
  readonly id: string;
  readonly title: string;
  /** 'pron', 'translate', 'dates', 'en-ko', 'reverse' */
  readonly task: string;
  /** The files under models/: one, or an ensemble's members. */
  readonly files: readonly string[];
  /** The size in bytes of each file, in order: what a page downloads to load it. */
  readonly bytes: readonly number[];
  /** A pronunciation model's language ('ko', 'en-us', ...). */
  readonly language?: string;
  /** A translation model's languages. */
  readonly source?: string;
  readonly target?: string;
  /** The data's terms, where they restrict use (the licence of the data a model learned from). */
  readonly terms?: string;
  /** Inputs that show what the model does. */
  readonly examples: readonly string[];
  /**
   * The decode options the model is meant to be decoded with, chosen on its dev data (g2p-en:
   * { noRepeatNgram: 4 }, a guard against loops on long words): pass them to translate() or decoder().
   */
  readonly decode?: Readonly<DecodeOptions>;
  /** The model's default lexicon (g2p-en: CMUdict), read by lexicon(id): its file, licence file, title and size. */
  readonly lexicon?: { readonly file: string; readonly licence: string; readonly title: string; readonly bytes: number };
}

/** Every model of the package, in the demo page's order. Rejects with LOAD_FAILED if its list cannot be read. */
export function list(): Promise<ModelEntry[]>;
/** The URLs of a model's files. BAD_INPUT for an id the package does not have (the message lists its ids). */
export function urls(id: string): Promise<URL[]>;
/**
 * Loads a model by id: a Model, or an Ensemble for an entry of several files (ensemble.dispose()
 * disposes its models). BAD_INPUT for an unknown id; LOAD_FAILED when a file cannot be read.
 */
export function load(id: string, options?: LoadOptions): Promise<Model | Ensemble>;
/**
 * The default lexicon of a model (g2p-en: CMUdict, 118,837 words, about 0.8 MB to download), a Map
 * from word to its pronunciations for pronounce()'s `lexicon`; read the first time it is asked for.
 * BAD_INPUT for an id without one; LOAD_FAILED when it cannot be read.
 */
export function lexicon(id: string): Promise<Map<string, string[]>>;
