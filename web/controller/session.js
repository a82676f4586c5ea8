// The decode the page watches, as data: the input encoded once, a decoder stepped one engine step at
// a time (a what-if override replaces a step's attention), and the alignment so far, which grows by
// one row per step into a buffer that doubles, so hovering and drawing read it without copying.
// Interface: openSession(), stepSession(), closeSession(), alignmentOf(), outputText(); no DOM.
import { tokenLabels } from '../views/alignment.js';
import { joinTokens } from '../views/format.js';

export const parseIds = (text) => text.split(/[\s,]+/).filter(Boolean).map(Number);
/** The input as the model takes it: ids for an ids-only model, else the text. */
export const sourceInput = (model, text) => (model.config.tokenizer === 'ids' ? parseIds(text) : text);
/** What a session decodes: the model entry, the input and the forced prefix. */
export const sessionKey = (entry, text, prefix) => `${entry?.id}\u0000${text}\u0000${prefix}`;
export const isVanilla = (sess) => sess?.model.config.style === 'none';

/** Positions of the pieces the vocabulary lacks (read as <unk>); the unk token's own spelling is known. */
export const unknownAt = (model, ids, tokens, vocab) => tokens.flatMap((t, i) => (ids[i] === model.config.unk && t !== vocab[model.config.unk] ? [i] : []));

/**
 * Encodes `text` with the entry's model and starts a decoder (top 5 next tokens per step, `prefix`
 * forced first). overrides: step index -> attention row (what-if edits). Throws the package's error.
 */
export function openSession(entry, text, prefix, overrides = new Map()) {
  const model = entry.model;
  const enc = model.encode(sourceInput(model, text));
  let dec;
  try {
    dec = model.decoder(enc, prefix ? { topk: 5, prefix: sourceInput(model, prefix) } : { topk: 5 });
  } catch (e) {
    enc.dispose();
    throw e;
  }
  const cols = enc.tokens.length;
  return {
    key: sessionKey(entry, text, prefix), model, entry, enc, dec, memory: enc.memory(), src: enc.tokens,
    srcLabels: tokenLabels(enc.tokens), text, prefix, overrides, done: false,
    unknown: new Set(model.config.tokenizer === 'ids' ? [] : unknownAt(model, enc.ids, enc.tokens, model.srcVocab)),
    steps: [],                          // the StepResults, r.overridden set on a what-if row
    tgt: [],                            // their tokens
    att: new Float32Array(16 * cols),   // their weights, row-major; capacity doubles as rows arrive
  };
}

export function closeSession(sess) {
  sess.dec.dispose();
  sess.enc.dispose();
}

/** Runs the next decoder step in the engine and appends it; returns its StepResult (throws on error). */
export function stepSession(sess) {
  const k = sess.steps.length, cols = sess.src.length;
  const override = sess.overrides.get(k);
  const r = sess.dec.step(override ? { attention: override } : {});
  r.overridden = !!override;
  sess.steps.push(r);
  sess.tgt.push(r.text);
  if (sess.att.length < (k + 1) * cols) {
    const grown = new Float32Array(2 * sess.att.length);
    grown.set(sess.att);
    sess.att = grown;
  }
  sess.att.set(r.attention, k * cols);
  sess.done = r.done || sess.dec.done;
  return r;
}

/** The alignment so far as the package's Translation has it (views of the session's arrays: read only). */
export function alignmentOf(sess) {
  const rows = sess.steps.length, cols = sess.src.length;
  return { srcTokens: sess.src, tgtTokens: sess.tgt, attention: sess.att.subarray(0, rows * cols), rows, cols };
}

/** The output so far as text, without BOS / EOS / padding, joined as the target side's tokenizer does. */
export function outputText(sess) {
  if (!sess) return '';
  const c = sess.model.config;
  const toks = sess.steps.filter((r) => ![c.eos, c.bos, c.pad].includes(r.token)).map((r) => r.text);
  return joinTokens(toks, c.tgtTokenizer);
}
