// Ensembles in the npm package (createEnsemble, Ensemble: wasm/attnseq.js): the members decode
// together, ranking tokens by the mean of their log-probabilities; an ensemble of one is its model
// bit for bit; a model with itself translates as the model; `attention` is the members' mean and
// `memberAttention` each one's own; a batch gives each input what it gets alone; members without the
// same vocabularies, non-models, disposed models and an Encoded are refused with their names, and the
// models keep working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel, createEnsemble, Ensemble, AttnseqError } from '../../wasm/attnseq.js';

const ROOT = new URL('../../', import.meta.url);
const m = {};
before(async () => {
  for (const id of ['en-ko', 'en-ko-general', 'en-ko-bahdanau', 'dates', 'en-fr']) m[id] = await loadModel(new URL(`models/${id}.safetensors`, ROOT));
});
after(() => { for (const x of Object.values(m)) x.dispose(); });

const inputs = ['jane went to the store', 'the cat saw a dog', 'tom ate an apple', [5, 6, 7]];
const options = [{}, { beam: 4 }, { beam: 3, numHypotheses: 2, lengthPenalty: 0.6 }, { temperature: 0.9, seed: 7 }, { prefix: [5] }];
const refused = (f, code, fragment) => assert.throws(f, (e) => e instanceof AttnseqError && e.code === code && e.message.includes(fragment),
  `${code} mentioning ${JSON.stringify(fragment)}`);

test('an ensemble of one translates as its model, bit for bit', () => {
  const one = createEnsemble([m['en-ko']]);
  assert.ok(one instanceof Ensemble);
  assert.equal(one.size, 1);
  for (const o of options)
    for (const x of inputs) {
      const a = m['en-ko'].translate(x, o), b = one.translate(x, o);
      assert.deepEqual(b, a, `${JSON.stringify(x)} ${JSON.stringify(o)}`);
      assert.equal(b.memberAttention, undefined);
    }
});

test('a model with itself: the model\'s translations, and its attention as the mean and as each member\'s', () => {
  const twice = createEnsemble([m['en-ko'], m['en-ko']]);
  for (const o of [{}, { beam: 4 }])
    for (const x of inputs) {
      const a = m['en-ko'].translate(x, o), b = twice.translate(x, o);
      assert.equal(b.text, a.text);
      assert.deepEqual(b.tokens, a.tokens);
      assert.deepEqual(b.hypotheses.map((h) => h.text), a.hypotheses.map((h) => h.text));
      assert.deepEqual(b.attention, a.attention);  // (w + w) / 2 = w
      assert.equal(b.memberAttention.length, 2);
      for (const w of b.memberAttention) assert.deepEqual(w, a.attention);
      for (const h of b.hypotheses) assert.equal(h.memberAttention.length, 2);
    }
});

test('different members: the mean attention, each one\'s own, and a batch equal to each input alone', () => {
  const e = createEnsemble([m['en-ko'], m['en-ko-general'], m['en-ko-bahdanau']]);
  assert.equal(e.config, m['en-ko'].config);
  let differs = 0;
  for (const o of options) {
    const batch = e.translateBatch(inputs, o);
    inputs.forEach((x, i) => {
      const r = e.translate(x, o);
      assert.deepEqual(batch[i], r, `input ${i} ${JSON.stringify(o)}`);
      for (const h of r.hypotheses) {
        assert.equal(h.memberAttention.length, 3);
        for (let k = 0; k < h.rows; k++) {
          let sum = 0;
          for (let t = 0; t < h.cols; t++) {
            const w = h.attention[k * h.cols + t];
            sum += w;
            const mean = (h.memberAttention[0][k * h.cols + t] + h.memberAttention[1][k * h.cols + t] + h.memberAttention[2][k * h.cols + t]) / 3;
            assert.ok(Math.abs(w - mean) < 1e-6);
          }
          assert.ok(Math.abs(sum - 1) < 1e-5);
        }
      }
      differs += r.text !== m['en-ko'].translate(x, o).text || r.score !== m['en-ko'].translate(x, o).score;
    });
  }
  assert.ok(differs > 0, 'the other members change the scores');
});

test('a subword model\'s ensemble has its word view', () => {
  const e = createEnsemble([m['en-fr'], m['en-fr']]);
  const r = e.translate('A red car.');
  const a = m['en-fr'].translate('A red car.');
  assert.equal(r.text, a.text);
  assert.deepEqual(r.words, a.words);
});

test('refusals name what is wrong, and every model keeps working', () => {
  refused(() => createEnsemble([]), 'BAD_INPUT', 'createEnsemble() takes a non-empty array of models');
  refused(() => createEnsemble(m['en-ko']), 'BAD_INPUT', 'createEnsemble() takes a non-empty array of models');
  refused(() => createEnsemble([m['en-ko'], {}]), 'BAD_INPUT', 'models[1] is not a Model');
  refused(() => createEnsemble([m['en-ko'], m['dates']]), 'BAD_INPUT',
    "ensemble: models[1] does not share models[0]'s vocabularies: its source vocabulary has 63 tokens, not 68");
  refused(() => createEnsemble(new Array(17).fill(m['en-ko'])), 'BAD_INPUT', '17 models; an ensemble has at most 16');
  const e = createEnsemble([m['en-ko'], m['en-ko-general']]);
  const enc = m['en-ko'].encode('the cat');
  refused(() => e.translate(enc), 'BAD_INPUT', 'not an Encoded');
  refused(() => e.translateBatch(['the cat', enc]), 'BAD_INPUT', 'inputs[1]: an ensemble translates text or ids, not an Encoded');
  enc.dispose();
  // A bad input: the model's own code and message (translate), or with its index (translateBatch).
  const own = (() => { try { m['en-ko'].translate([9999]); } catch (x) { return x; } })();
  refused(() => e.translate([9999]), own.code, own.message);
  assert.throws(() => e.translateBatch(['the cat', [9999]]), (x) => x.index === 1 && x.message === `inputs[1]: ${own.message}`);
  refused(() => e.translate('the cat', { bem: 2 }), 'BAD_INPUT', "unknown option 'bem'");
  assert.equal(e.translate('the cat').text, e.translate('the cat').text);
  // A disposed member: refused at creation, and an ensemble holding it says so.
  const extra = createEnsemble([m['en-ko']]);
  return loadModel(new URL('models/en-ko-general.safetensors', ROOT)).then((g) => {
    const e2 = createEnsemble([m['en-ko'], g]);
    g.dispose();
    refused(() => createEnsemble([m['en-ko'], g]), 'DISPOSED', 'models[1] has been disposed');
    refused(() => e2.translate('the cat'), 'DISPOSED', 'disposed');
    assert.equal(extra.translate('the cat').text, m['en-ko'].translate('the cat').text);
  });
});
