// Pronunciation helpers: the ARPAbet -> IPA table of CMUdict's 39 stressless phonemes, and
// pronounce(model, text), which splits text into words, takes each word's phonemes from a lexicon
// when it has the word and from the model otherwise, and passes what is not a word (digits, spaces,
// punctuation) through as written, never turning it into phonemes.
import { AttnseqError } from './errors.js';

// The 39 phonemes of CMUdict (data/cmudict/README.md), one IPA string each, as in docs/g2p.md's table
// (General American; the usual ARPAbet correspondence). CMUdict's stress digits are removed in the
// G2P data, so the two vowels whose IPA depends on stress take their unstressed form: AH -> ə (AH1
// would be ʌ) and ER -> ɚ (ER1 would be ɝ).
/** The 39 phonemes and their IPA, in ARPAbet order. */
export const ARPABET_IPA = Object.freeze({
  AA: 'ɑ', AE: 'æ', AH: 'ə', AO: 'ɔ', AW: 'aʊ', AY: 'aɪ', B: 'b', CH: 'tʃ', D: 'd', DH: 'ð',
  EH: 'ɛ', ER: 'ɚ', EY: 'eɪ', F: 'f', G: 'ɡ', HH: 'h', IH: 'ɪ', IY: 'i', JH: 'dʒ', K: 'k',
  L: 'l', M: 'm', N: 'n', NG: 'ŋ', OW: 'oʊ', OY: 'ɔɪ', P: 'p', R: 'ɹ', S: 's', SH: 'ʃ',
  T: 't', TH: 'θ', UH: 'ʊ', UW: 'u', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
});

const isArpabet = (t) => Object.prototype.hasOwnProperty.call(ARPABET_IPA, t);

/**
 * IPA of a phoneme string ("N AY T" -> "naɪt"); a token outside the 39 (a special such as <unk>, or a
 * model that is not ARPAbet) makes the whole answer null rather than a half-converted string.
 */
export function toIPA(phonemes) {
  const toks = String(phonemes ?? '').trim().split(/\s+/).filter(Boolean);
  if (!toks.length) return '';
  let out = '';
  for (const t of toks) {
    if (!isArpabet(t)) return null;
    out += ARPABET_IPA[t];
  }
  return out;
}

/** Whether a model's target vocabulary is ARPAbet (every ordinary token one of the 39). */
export function speaksARPAbet(targetTokens) {
  const ordinary = (targetTokens ?? []).filter((t) => !/^<.*>$/.test(t));
  return ordinary.length > 0 && ordinary.every(isArpabet);
}

// A word: letters (with their combining marks), and an apostrophe between letters ("don't", "O'Brien").
const WORD = /[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*/gu;

/**
 * text split into its words and what lies between them, in order, covering it whole:
 * [{ text, start, end, word }] (start and end: UTF-16 offsets; word: false for digits, spaces and
 * punctuation).
 */
export function splitWords(text) {
  if (typeof text !== 'string') throw new AttnseqError('BAD_INPUT', `splitWords() takes a string, got ${typeof text}`);
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    if (m.index > at) parts.push({ text: text.slice(at, m.index), start: at, end: m.index, word: false });
    parts.push({ text: m[0], start: m.index, end: m.index + m[0].length, word: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), start: at, end: text.length, word: false });
  return parts;
}

/**
 * A lexicon file's text (WORD<TAB>PRONUNCIATION lines, as data/cmudict's; a word on several lines has
 * several pronunciations, the first its main one; blank lines are skipped) as a Map from word to its
 * pronunciations. A malformed line is refused, naming `name` and the line.
 */
export function parseLexicon(text, name = 'lexicon') {
  if (typeof text !== 'string') throw new AttnseqError('BAD_INPUT', `parseLexicon(): ${name} must be text, got ${typeof text}`);
  const map = new Map();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.trim() === '') continue;
    const bad = (why) => new AttnseqError('BAD_INPUT', `${name}:${i + 1}: ${why} (a lexicon line is WORD<TAB>PRONUNCIATION)`);
    const tab = line.indexOf('\t');
    if (tab < 0) throw bad('no tab');
    const word = line.slice(0, tab), rest = line.slice(tab + 1);
    const pron = rest.trim().split(/\s+/).filter(Boolean).join(' ');
    if (word === '' || /\s/.test(word)) throw bad(word === '' ? 'no word before the tab' : `the word '${word}' holds a space`);
    if (rest.includes('\t')) throw bad('more than one tab');
    if (pron === '') throw bad(`no pronunciation for '${word}'`);
    const known = map.get(word);
    if (known) { if (!known.includes(pron)) known.push(pron); } else map.set(word, [pron]);
  }
  return map;
}

const asciiLower = (w) => w.replace(/[A-Z]/g, (c) => c.toLowerCase());
const asciiUpper = (w) => w.replace(/[a-z]/g, (c) => c.toUpperCase());

/**
 * The pronunciations of `word` in the lexicons (Maps from word to a pronunciation or an array of
 * them), or null: the first lexicon that has it decides; in each, the word is looked up as written,
 * then with its ASCII letters lower-cased, then upper-cased (CMUdict writes its words in capitals),
 * as `attnseq translate --lexicon` does in both command lines.
 */
export function lookUp(lexicons, word) {
  for (const lexicon of lexicons) {
    for (const key of [word, asciiLower(word), asciiUpper(word)]) {
      if (!lexicon.has(key)) continue;
      const v = lexicon.get(key);
      const all = Array.isArray(v) ? v : [v];
      if (all.length === 0 || !all.every((p) => typeof p === 'string' && p.trim() !== ''))
        throw new AttnseqError('BAD_INPUT', `pronounce(): the lexicon's entry for '${key}' must be a pronunciation (a non-empty string) or an array of them`);
      return all.map((p) => p.trim().split(/\s+/).join(' '));
    }
  }
  return null;
}

/**
 * The pronunciation of every word of `text` by a pronunciation model (a Model or an Ensemble that
 * reads letters): { text, parts }, parts as splitWords() gives them, each word with
 *   source: 'lexicon' (a lexicon given has it) or 'model';
 *   phonemes: the pronunciation as the model writes it ("N AY T"), the lexicon's first for a lexicon word;
 *   alternatives: every pronunciation the lexicon gives (a lexicon word) or [phonemes];
 *   ipa: its IPA for an ARPAbet model (toIPA), the phones joined for an IPA model, else null;
 *   translation: the model's result for the word (tokens, attention, ...), null for a lexicon word.
 * What is not a word stays as written. `text` may be an array of texts: then an array of results,
 * every text's words decoded in the one batch. options: lexicon (a Map from word to a pronunciation or
 * an array of them, or an array of such Maps, the first that has a word deciding: a user's own
 * before a shipped one; lookUp() says how a word is found) and the model's translateBatch() options (beam, noRepeatNgram, ...). Each
 * distinct word is decoded once, all of them in one batch.
 */
export function pronounce(model, text, options = {}) {
  if (typeof model?.translateBatch !== 'function' || typeof model?.config !== 'object')
    throw new AttnseqError('BAD_INPUT', 'pronounce() takes a Model or an Ensemble first');
  if (model.config.srcTokenizer !== 'char')
    throw new AttnseqError('BAD_INPUT', `pronounce() needs a model that reads letters (its source tokenizer is '${model.config.srcTokenizer}', not 'char')`);
  const many = Array.isArray(text);
  const texts = many ? text : [text];
  texts.forEach((t, i) => {
    if (typeof t !== 'string') throw new AttnseqError('BAD_INPUT', `pronounce() takes text or an array of texts, got ${many ? `${typeof t} at [${i}]` : typeof t}`);
  });
  if (options === null || typeof options !== 'object') throw new AttnseqError('BAD_INPUT', 'pronounce() options must be an object');
  const { lexicon, ...decode } = options;
  const lexicons = lexicon === undefined ? [] : Array.isArray(lexicon) ? lexicon : [lexicon];
  if (!lexicons.every((l) => l instanceof Map))
    throw new AttnseqError('BAD_INPUT', 'pronounce(): option \'lexicon\' must be a Map from word to pronunciation, or an array of them');
  const split = texts.map(splitWords);
  const fromLexicon = new Map(), toDecode = [], queued = new Set();
  for (const parts of split) {
    for (const p of parts) {
      if (!p.word || fromLexicon.has(p.text) || queued.has(p.text)) continue;
      const known = lookUp(lexicons, p.text);
      if (known) fromLexicon.set(p.text, known);
      else toDecode.push(p.text), queued.add(p.text);
    }
  }
  const decoded = new Map();
  if (toDecode.length > 0) {
    const results = model.translateBatch(toDecode, decode);
    toDecode.forEach((w, i) => decoded.set(w, results[i]));
  } else {
    model.translateBatch([], decode);  // the options are checked even when no word needs the model
  }
  const tgtVocab = model.tgtVocab ?? model.models?.[0]?.tgtVocab ?? [];
  const arpabet = speaksARPAbet(tgtVocab);
  const ipaPhones = model.config.metadata?.phones === 'ipa';
  const ipaOf = (ph) => (arpabet ? toIPA(ph) : ipaPhones ? ph.split(' ').join('') : null);
  const results = texts.map((t, i) => ({
    text: t,
    parts: split[i].map((p) => {
      if (!p.word) return p;
      const lex = fromLexicon.get(p.text);
      if (lex) return { ...p, source: 'lexicon', phonemes: lex[0], alternatives: lex, ipa: ipaOf(lex[0]), translation: null };
      const r = decoded.get(p.text);
      return { ...p, source: 'model', phonemes: r.text, alternatives: [r.text], ipa: ipaOf(r.text), translation: r };
    }),
  }));
  return many ? results : results[0];
}
