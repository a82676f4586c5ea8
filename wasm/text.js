// Checks of the text and ids the package is given, and the one rewrite of an output it offers
// (replaceUnknowns).
import { AttnseqError } from './errors.js';
import { describe } from './options.js';

// A lone UTF-16 surrogate cannot become UTF-8; Embind would silently replace it, so refuse it here.
export function checkWellFormed(text) {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
    }
    if (c >= 0xd800 && c <= 0xdfff)
      throw new AttnseqError('BAD_INPUT', `the text has a lone UTF-16 surrogate at index ${i}`);
  }
}

export function toIds(v, vocab, what) {
  if (!(Array.isArray(v) || ArrayBuffer.isView(v))) throw new AttnseqError('BAD_INPUT', `${what} must be text or an array of token ids`);
  const out = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isInteger(x))
      throw new AttnseqError('BAD_INPUT', `${what}[${i}] is ${String(x)}; token ids are integers`);
    if (x < 0 || x >= vocab) throw new AttnseqError('BAD_INPUT', `${what}[${i}] = ${x} is outside the vocabulary [0, ${vocab})`);
    out[i] = x;
  }
  return out;
}

// Target ids of a text, refusing pieces the vocabulary lacks: the tokenizer would turn them into unk
// and a forced prefix or token would silently become `<unk>`. The unk token's own spelling is accepted.
// single: exactly one token (a char model would otherwise force only the first letter of 'xyz').
export function knownTargetIds(model, text, what, single = false) {
  const { ids, tokens } = model.tokenize(text, 'target');
  if (single && ids.length !== 1)
    throw new AttnseqError('BAD_INPUT', `${what} takes one target token; ${describe(text)} is ${ids.length} tokens`);
  const unk = model.config.unk;
  const missing = [...new Set(tokens.filter((t, i) => ids[i] === unk && t !== model.tgtVocab?.[unk]))];
  if (missing.length)
    throw new AttnseqError('BAD_INPUT', `${what}: ${missing.map((t) => JSON.stringify(t)).join(', ')} ${missing.length === 1 ? 'is' : 'are'} ` +
      'not in the model\'s target vocabulary');
  return ids;
}

export function replaceUnknowns(tokens, ids, attention, cols, srcTokens, unk) {
  for (let k = 0; k < tokens.length; k++) {
    if (ids[k] !== unk) continue;
    let best = 0;
    for (let t = 1; t < cols; t++) if (attention[k * cols + t] > attention[k * cols + best]) best = t;
    tokens[k] = srcTokens[best];
  }
}
