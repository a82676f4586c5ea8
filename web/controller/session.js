// The decode the page watches, as data: the input encoded once, a decoder stepped one engine step at
// a time (a what-if override replaces a step's attention), and the alignment so far, which grows by
// one row per step into a buffer that doubles, so hovering and drawing read it without copying.
// Interface: openSession(), stepSession(), closeSession(), alignmentOf(), gridOf() (the matrix's rows and
// columns: pieces, or a subword model's words), outputText(); no DOM.
import { tokenLabels } from '../views/alignment.js';
import { joinTokens } from '../views/format.js';
import { state } from './state.js';

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
  const opts = { ...entry.decode, topk: 5, ...(prefix ? { prefix: sourceInput(model, prefix) } : {}) };
  const members = model.models?.length ?? 1;   // an Ensemble's, or one model
  let enc, dec, memories;
  if (model.models) {
    dec = model.decoder(sourceInput(model, text), opts);   // each member encodes the input (dec.encoded)
    enc = dec.encoded[0];
    memories = dec.encoded.map((e) => e.memory());
  } else {
    enc = model.encode(sourceInput(model, text));
    try {
      dec = model.decoder(enc, opts);
    } catch (e) {
      enc.dispose();
      throw e;
    }
    memories = [enc.memory()];
  }
  const cols = enc.tokens.length;
  return {
    key: sessionKey(entry, text, prefix), model, entry, enc, dec, memories, src: enc.tokens,
    members,                            // models decoding together (1: one model)
    memberAtt: model.models ? model.models.map(() => new Float32Array(16 * cols)) : null,   // each member's weights, as att
    srcLabels: tokenLabels(enc.tokens), text, prefix, overrides, done: false,
    unknown: new Set(model.config.tokenizer === 'ids' ? [] : unknownAt(model, enc.ids, enc.tokens, model.srcVocab)),
    bytes: new Set(bytesAt(model, enc.tokens)),
    steps: [],                          // the StepResults, r.overridden set on a what-if row
    tgt: [],                            // their tokens
    att: new Float32Array(16 * cols),   // their weights, row-major; capacity doubles as rows arrive
  };
}

export function closeSession(sess) {
  sess.dec.dispose();   // (an ensemble's decoder disposes its members' encodings)
  sess.enc.dispose();
}

/**
 * Which weights the matrix shows: the model's own, or for an ensemble its members' mean (member null)
 * or member m's. The inspector always shows one model: member m, or the first when the mean is shown.
 */
export const shownMember = (sess, member) => (sess?.memberAtt && member !== null && member < sess.members ? member : null);
export const inspectedMember = (sess, member) => shownMember(sess, member) ?? 0;

/** Step k as the inspector shows it: an ensemble's step with member m's own numbers (its keys: sess.memories[m]). */
export function inspectedStep(sess, k, member) {
  const r = sess.steps[k];
  if (!r.members) return r;
  const m = r.members[inspectedMember(sess, member)];
  return { ...r, attention: m.attention, scores: m.scores, query: m.query, context: m.context, logits: m.logits, ensembleAttention: r.attention };
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
  if (sess.memberAtt) {
    sess.memberAtt = sess.memberAtt.map((buf, m) => {
      const b = buf.length < (k + 1) * cols ? new Float32Array(2 * buf.length) : buf;
      if (b !== buf) b.set(buf);
      b.set(r.members[m].attention, k * cols);
      return b;
    });
  }
  sess.done = r.done || sess.dec.done;
  return r;
}

/** Whether the model's alignment can be shown by words: a side of subword pieces. */
export const hasWords = (model) => model?.config.srcTokenizer === 'spm' || model?.config.tgtTokenizer === 'spm';

/** Positions of byte-fallback pieces (<0xE2>): characters the tokenizer spelt as bytes. */
export const bytesAt = (model, tokens) => (hasWords(model) ? tokens.flatMap((t, i) => (/^<0x[0-9A-F]{2}>$/.test(t) ? [i] : [])) : []);

const grids = new WeakMap();   // session -> { key, grid }: the last grid made, while its steps and units stand

/**
 * What the matrix shows of the session so far, by pieces (a row per step, a column per source token)
 * or, when `byWords` and the model has subword pieces, by words: a source word's pieces merged into one
 * column (its weight the sum of theirs) and a target word's steps into one row (the mean of theirs), as
 * the package's words() has it; the end token is no word. Fields: words (which it is), srcTokens,
 * srcLabels (names for messages), tgtTokens, attention (rows x cols, read only), rows, cols,
 * rowSteps[row] = [first step, count], colSpans[col] = [first piece, count], rowOf[step] (-1: in no
 * row), flags[row] = { forced, overridden }, unknown and bytes (Sets of columns).
 */
export function gridOf(sess, byWords) {
  const words = !!byWords && hasWords(sess.model);
  const member = shownMember(sess, state.member);
  const key = `${words}:${sess.steps.length}:${member}`;
  const kept = grids.get(sess);
  if (kept?.key === key) return kept.grid;
  const a = alignmentOf(sess);
  let grid;
  if (!words) {
    grid = {
      words, srcTokens: sess.src, srcLabels: sess.srcLabels, tgtTokens: sess.tgt, attention: a.attention, rows: a.rows, cols: a.cols,
      rowSteps: sess.steps.map((_, k) => [k, 1]), colSpans: sess.src.map((_, i) => [i, 1]), rowOf: sess.steps.map((_, k) => k),
      flags: sess.steps.map((r) => ({ forced: r.forced, overridden: r.overridden })), unknown: sess.unknown, bytes: sess.bytes,
    };
  } else {
    const vanilla = isVanilla(sess);
    const v = (sess.model.models?.[0] ?? sess.model).words(sess.enc.ids, sess.steps.map((r) => r.token), vanilla ? null : a.attention);
    const rowOf = sess.steps.map(() => -1);
    v.targetSpans.forEach(([f, n], row) => { for (let k = f; k < f + n; k++) rowOf[k] = row; });
    const colsOf = (set) => new Set(v.sourceSpans.flatMap(([f, n], col) => ([...set].some((i) => i >= f && i < f + n) ? [col] : [])));
    grid = {
      words, srcTokens: v.source, srcLabels: tokenLabels(v.source), tgtTokens: v.target,
      attention: v.attention ?? new Float32Array(v.rows * v.cols), rows: v.rows, cols: v.cols,
      rowSteps: v.targetSpans, colSpans: v.sourceSpans, rowOf,
      flags: v.targetSpans.map(([f, n]) => ({ forced: sess.steps.slice(f, f + n).some((r) => r.forced), overridden: sess.steps.slice(f, f + n).some((r) => r.overridden) })),
      unknown: colsOf(sess.unknown), bytes: colsOf(sess.bytes),
    };
  }
  grids.set(sess, { key, grid });
  return grid;
}

/** The alignment so far as the package's Translation has it (views of the session's arrays: read only). */
export function alignmentOf(sess) {
  const rows = sess.steps.length, cols = sess.src.length;
  const member = shownMember(sess, state.member);
  const att = member === null ? sess.att : sess.memberAtt[member];
  return { srcTokens: sess.src, tgtTokens: sess.tgt, attention: att.subarray(0, rows * cols), rows, cols };
}

/** The output so far as text, without BOS / EOS / padding, joined as the target side's tokenizer does. */
export function outputText(sess) {
  if (!sess) return '';
  const c = sess.model.config;
  if (c.tgtTokenizer === 'spm') return (sess.model.models?.[0] ?? sess.model).detokenize(sess.steps.map((r) => r.token));   // (pieces decoded by the engine)
  const toks = sess.steps.filter((r) => ![c.eos, c.bos, c.pad].includes(r.token)).map((r) => r.text);
  return joinTokens(toks, c.tgtTokenizer);
}
