// The step record at the boundary: the layout the engine exports (src/decode/step_record.hpp, through
// Decoder.recordLayout() in wasm/bindings.cpp) tiles the record with no gap or overlap, dec.step()
// copies exactly that many floats and hands out each field at the engine's offset, and every field of
// the returned record equals the engine's values read another way (translate(), enc.memory(), a
// softmax of the step's own logits and scores). A C++ writer and a JavaScript reader that disagreed
// would fail here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel } from '../../wasm/attnseq.js';

const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);
// Every cell, style and score, uni- and bidirectional, one and two layers, with and without a bridge.
const MODELS = ['gru_luong_dot', 'lstm_bi_bahdanau_dot', 'gru_none', 'lstm_bi_2layer_bridge_luong_additive',
  'gru_bi_bridge_luong_general', 'gru_luong_dot_if', 'lstm_none'];
// The fields the wrapper reads; their lengths follow from the model and the source (docs/architecture.md).
const SCALARS = ['token', 'logProb', 'done', 'forced', 'index', 'topkCount'];

function softmax(xs) {
  const m = Math.max(...xs);
  const e = Array.from(xs, (x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}
const near = (got, want, tol, what) => assert.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want} (tolerance ${tol})`);

test('the exported layout tiles the record and dec.step() reads every field at its offset', async () => {
  for (const name of MODELS) {
    const model = await loadModel(FIX(name));
    const c = model.config;
    for (const src of ['w5', 'w5 w6 w7 w8 w4 w9 w10']) {
      const enc = model.encode(src);
      const T = enc.length;
      const dec = model.decoder(enc, { topk: 3 });
      const layout = dec._h.recordLayout();
      const where = `${name}, T = ${T}`;
      let end = 0;
      for (const f of layout.fields) {
        assert.equal(f.offset, end, `${where}: ${f.name} starts where the field before it ends`);
        end += f.length;
      }
      assert.equal(end, layout.size, `${where}: the fields end where the record does`);
      const byName = Object.fromEntries(layout.fields.map((f) => [f.name, f]));
      assert.equal(Object.keys(byName).length, layout.fields.length, `${where}: field names are unique`);
      for (const s of SCALARS) assert.equal(byName[s]?.length, 1, `${where}: ${s} is one float`);
      const want = { query: c.hidden, context: c.encoderOutput, scores: T, attention: T, logits: c.tgtVocabSize };
      for (const [f, n] of Object.entries(want)) assert.equal(byName[f]?.length, n, `${where}: ${f} length`);
      // The top-k slots hold the most the API accepts: topk = that many works, one more is refused.
      const maxTopk = byName.topkIds?.length;
      assert.equal(byName.topkProbs?.length, maxTopk, `${where}: as many probabilities as ids`);
      assert.equal(layout.fields.length, SCALARS.length + Object.keys(want).length + 2, `${where}: no other field`);
      model.decoder(enc, { topk: maxTopk }).dispose();
      assert.throws(() => model.decoder(enc, { topk: maxTopk + 1 }), (e) => e.code === 'BAD_INPUT');

      const s = dec.step();
      // One copy of exactly the record, and each array a view of it at the engine's offset.
      const buffer = s.query.buffer;
      assert.equal(buffer.byteLength, layout.size * 4, `${where}: the slice is the record`);
      for (const f of Object.keys(want)) {
        assert.equal(s[f].buffer, buffer, `${where}: ${f} is a view of the one copy`);
        assert.equal(s[f].byteOffset, byName[f].offset * 4, `${where}: ${f} offset`);
        assert.equal(s[f].length, byName[f].length, `${where}: ${f} length`);
      }
      assert.equal(s.topk.length, Math.min(3, c.tgtVocabSize), `${where}: topk count`);
      dec.dispose();
      enc.dispose();
    }
    model.dispose();
  }
});

test('every field of a step record equals the engine read another way', async () => {
  let steps = 0;
  for (const name of MODELS) {
    const model = await loadModel(FIX(name));
    const c = model.config;
    const attention = c.style !== 'none';
    const dot = c.score === 'dot' && attention;
    const enc = model.encode('w5 w9 w7 w4 w11');
    const T = enc.length;
    const mem = enc.memory();  // keys = values h_i, (T, encoderOutput)
    const ref = model.translate(enc, { maxLength: 12 });
    const dec = model.decoder(enc, { maxLength: 12, topk: c.tgtVocabSize });
    let logProb = 0;
    for (let k = 0; !dec.done; k++) {
      const at = `${name}, step ${k}`;
      const s = dec.step();
      steps++;
      assert.equal(s.index, k, `${at}: index`);
      assert.equal(s.forced, false, `${at}: forced`);
      assert.equal(s.token, ref.tokens[k], `${at}: token is translate()'s`);
      assert.equal(s.text, ref.tgtTokens[k], `${at}: text`);
      assert.equal(s.done, k === ref.tokens.length - 1, `${at}: done only on the last token`);
      assert.deepEqual(Array.from(s.attention), Array.from(ref.attention.subarray(k * T, (k + 1) * T)), `${at}: attention row`);
      logProb += s.logProb;
      // logits: the token is their argmax; logProb and every candidate's p are their softmax.
      const p = softmax(s.logits);
      assert.equal(s.logits[s.token], Math.max(...s.logits), `${at}: token is the argmax`);
      near(s.logProb, Math.log(p[s.token]), 1e-5, `${at}: logProb`);
      assert.equal(s.topk.length, c.tgtVocabSize, `${at}: topk count`);
      for (let i = 0; i < s.topk.length; i++) {
        const { token, p: pi, text } = s.topk[i];
        near(pi, p[token], 1e-6, `${at}: topk[${i}].p`);
        assert.equal(text, model.tgtVocab[token], `${at}: topk[${i}].text`);
        if (i > 0) assert.ok(s.logits[s.topk[i - 1].token] >= s.logits[token], `${at}: topk in order`);
      }
      assert.equal(new Set(s.topk.map((x) => x.token)).size, c.tgtVocabSize, `${at}: topk covers the vocabulary once`);
      assert.equal(s.query.length, c.hidden);
      if (attention) {
        // scores -> attention by a softmax; attention and the keys -> context.
        softmax(s.scores).forEach((w, i) => near(s.attention[i], w, 1e-6, `${at}: attention[${i}]`));
        for (let j = 0; j < mem.cols; j++) {
          let cj = 0;
          for (let i = 0; i < T; i++) cj += s.attention[i] * mem.data[i * mem.cols + j];
          near(s.context[j], cj, 1e-5, `${at}: context[${j}]`);
        }
      } else {
        assert.ok(s.attention.every((w) => w === 0), `${at}: vanilla attention is all zeros`);
      }
      if (dot) {
        // A dot score is <Q, K_i>: the query read from the record against the keys from memory().
        for (let i = 0; i < T; i++) {
          let q = 0;
          for (let j = 0; j < mem.cols; j++) q += s.query[j] * mem.data[i * mem.cols + j];
          near(s.scores[i], q, 1e-4 * Math.max(1, Math.abs(q)), `${at}: score[${i}] = <query, h_${i}>`);
        }
      }
    }
    near(logProb, ref.hypotheses[0].logProb, 1e-4 * Math.max(1, Math.abs(logProb)), `${name}: summed logProb`);
    // A forced token and a moved attention row come back as given.
    const forcedId = c.tgtVocabSize - 1;
    const f = dec.step({ force: forcedId });
    assert.equal(f.token, forcedId, `${name}: forced token`);
    assert.equal(f.forced, true, `${name}: forced flag`);
    assert.equal(f.index, ref.tokens.length, `${name}: index after the end`);
    if (attention) {
      const g = dec.step({ force: forcedId, attention: [0, 0, 2, 0, 2] });
      assert.deepEqual(Array.from(g.attention), [0, 0, 0.5, 0, 0.5], `${name}: the override, normalised`);
      for (let j = 0; j < mem.cols; j++)
        near(g.context[j], 0.5 * (mem.data[2 * mem.cols + j] + mem.data[4 * mem.cols + j]), 1e-5, `${name}: context of the override`);
    }
    dec.dispose();
    enc.dispose();
    model.dispose();
  }
  assert.ok(steps >= 20, `only ${steps} steps compared`);
});
