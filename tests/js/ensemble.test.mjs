// Ensembles in the npm package (createEnsemble, Ensemble: wasm/attnseq.js): the members decode
// together, ranking tokens by the mean of their log-probabilities; an ensemble of one is its model
// bit for bit; a model with itself translates as the model; `attention` is the members' mean and
// `memberAttention` each one's own; a batch gives each input what it gets alone; members without the
// same vocabularies, non-models, disposed models and an Encoded are refused with their names, and the
// models keep working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel, createEnsemble, Ensemble, EnsembleDecoder, AttnseqError } from '../../wasm/attnseq.js';

const ROOT = new URL('../../', import.meta.url);
const m = {};
before(async () => {
  for (const id of ['en-ko', 'en-ko-general', 'en-ko-bahdanau', 'dates', 'en-fr', 'en-fr-2']) m[id] = await loadModel(new URL(`models/${id}.safetensors`, ROOT));
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

// Steps a decoder to its end.
const stepAll = (dec, force = []) => {
  const steps = [];
  while (!dec.done) steps.push(dec.step(steps.length < force.length ? { force: force[steps.length] } : undefined));
  return steps;
};

test('decoder(): an ensemble of one steps as its model\'s decoder, bit for bit', () => {
  const model = m['en-ko'], one = createEnsemble([model]);
  for (const x of inputs)
    for (const o of [{}, { temperature: 0.9, seed: 7 }, { prefix: [5], topk: 3 }]) {
      const enc = model.encode(x);
      const a = stepAll(model.decoder(enc, o));
      enc.dispose();
      const dec = one.decoder(x, o);
      assert.ok(dec instanceof EnsembleDecoder);
      const b = stepAll(dec);
      assert.equal(b.length, a.length);
      b.forEach((s, k) => {
        for (const key of ['index', 'token', 'text', 'done', 'forced', 'logProb', 'topk', 'attention', 'logits'])
          assert.deepEqual(s[key], a[k][key], `${JSON.stringify(x)} step ${k} ${key}`);
        assert.equal(s.members.length, 1);
        for (const key of ['attention', 'scores', 'query', 'context', 'logits']) assert.deepEqual(s.members[0][key], a[k][key], key);
        assert.equal(s.query, undefined, 'an ensemble step has no query of its own');
      });
      dec.dispose();
      assert.ok(dec.encoded.every((e) => e.disposed), 'its encodings go with it');
    }
});

test('decoder(): different members step to the ensemble\'s translation; each member\'s numbers are its own', () => {
  const e = createEnsemble([m['en-ko'], m['en-ko-general'], m['en-ko-bahdanau']]);
  for (const x of inputs) {
    const want = e.translate(x).hypotheses[0];
    const dec = e.decoder(x, { topk: 4 });
    assert.equal(dec.encoded.length, 3);
    const steps = stepAll(dec);
    assert.deepEqual(steps.map((s) => s.token), Array.from(want.tokens));
    const cols = want.cols;
    let logProb = 0;
    steps.forEach((s, k) => {
      logProb += s.logProb;
      assert.equal(s.attention.length, cols);
      for (let t = 0; t < cols; t++) {
        assert.ok(Math.abs(s.attention[t] - want.attention[k * cols + t]) < 1e-6, `mean weight ${k},${t}`);
        s.members.forEach((mm, i) => assert.ok(Math.abs(mm.attention[t] - want.memberAttention[i][k * cols + t]) < 1e-6, `member ${i} weight ${k},${t}`));
      }
      // The mean log-probabilities the token was chosen by: the best is the token, and p = exp of it.
      assert.equal(s.topk[0].token, s.token);
      assert.ok(Math.abs(s.topk[0].p - Math.exp(s.logits[s.token])) < 1e-6);
      assert.ok(Math.abs(s.logProb - s.logits[s.token]) < 1e-6);
      assert.equal(s.topk.length, 4);
      // Each member's own numbers, in its own sizes (general, dot, bahdanau: their own queries).
      s.members.forEach((mm, i) => {
        assert.equal(mm.query.length, e.models[i].config.hidden);
        assert.equal(mm.logits.length, e.config.tgtVocabSize);
        assert.equal(mm.scores.length, cols);
      });
      assert.notDeepEqual(s.members[0].query, s.members[2].query);
    });
    assert.ok(Math.abs(logProb - want.logProb) < 1e-4);
    dec.dispose();
  }
});

test('decoder(): an attention override (a what-if) is every member\'s: the mean shown is the row, each member steps as alone with it', () => {
  const e = createEnsemble([m['en-ko'], m['en-ko-general']]);
  const text = 'jane went to the store';
  const dec = e.decoder(text);
  const alone = e.models.map((x) => x.decoder(x.encode(text)));
  const T = dec.encoded[0].length;
  const row = new Float32Array(T).fill(0);
  row[T - 2] = 1;  // "store"
  for (let k = 0; !dec.done && k < 6; k++) {
    const opt = k === 1 ? { attention: row } : undefined;
    const s = dec.step(opt);
    alone.forEach((d, i) => {
      const r = d.step({ force: s.token, ...(opt ?? {}) });
      assert.deepEqual(s.members[i].attention, r.attention, `member ${i} at step ${k}`);
      assert.deepEqual(s.members[i].logits, r.logits, `member ${i} at step ${k}`);
    });
    if (k === 1) assert.deepEqual([...s.attention], [...row], 'the mean shown is the override');
    else assert.notDeepEqual([...s.attention], [...row]);
  }
  for (const d of [dec, ...alone]) d.dispose();
});

test('decoder(): forced tokens, and what an ensemble decoder refuses; the models keep working', () => {
  const e = createEnsemble([m['en-ko'], m['en-ko-general']]);
  const dec = e.decoder('jane went to the store');
  const s = dec.step({ force: 7 });
  assert.equal(s.token, 7);
  assert.equal(s.forced, true);
  const T = dec.encoded[0].length;
  refused(() => dec.step({ attention: new Float32Array(T + 1).fill(0.2) }), 'BAD_INPUT', `attention override has ${T + 1} weights; the source has ${T}`);
  refused(() => dec.step({ attention: new Float32Array(T).fill(0) }), 'BAD_INPUT', 'attention override row 0 sums to 0');
  refused(() => dec.step({ attention: new Float32Array(T).fill(-1) }), 'BAD_INPUT', 'attention override weight 0 is -1');
  refused(() => dec.step({ force: 10 ** 6 }), 'BAD_INPUT', 'force must be a target token id');
  assert.equal(dec.length, 1, 'the refused steps changed nothing');
  refused(() => e.decoder(m['en-ko'].encode('jane')), 'BAD_INPUT', 'an ensemble decodes text or ids, not an Encoded');
  refused(() => e.decoder('jane', { topk: 99 }), 'BAD_INPUT', "option 'topk' is 99");
  refused(() => e.decoder('jane', { beam: 2 }), 'BAD_INPUT', 'beam');
  refused(() => e.decoder(''), 'BAD_INPUT', 'the source is empty');
  while (!dec.done) dec.step();
  refused(() => dec.step(), 'BAD_INPUT', 'the decoder has finished');
  dec.dispose();
  refused(() => dec.step(), 'DISPOSED', 'has been disposed');
  assert.equal(m['en-ko'].translate('jane went to the store').text.length > 0, true);
});

test('dispose(): an ensemble disposes its models; a second call does nothing; every call is then refused', async () => {
  const a = await loadModel(new URL('models/en-ko.safetensors', ROOT)), b = await loadModel(new URL('models/en-ko-general.safetensors', ROOT));
  const both = createEnsemble([a, b]);
  assert.equal(both.disposed, false);
  both.dispose();
  assert.ok(a.disposed && b.disposed && both.disposed);
  both.dispose();
  refused(() => both.translate('jane went to the store'), 'DISPOSED', 'disposed');
  // `using` (Symbol.dispose) does the same.
  const c = await loadModel(new URL('models/en-ko.safetensors', ROOT));
  createEnsemble([c])[Symbol.dispose]();
  assert.ok(c.disposed);
});

test('an ensemble tokenizes, detokenizes and groups pieces into words as its first member does (the shipped en-fr pair)', () => {
  const e = createEnsemble([m['en-fr'], m['en-fr-2']]);
  const t = e.translate('A red car is parked on the street.', { beam: 5, lengthPenalty: 1.2 });
  assert.equal(e.detokenize(t.tokens), t.text);
  assert.equal(e.detokenize(e.tokenize('Une voiture rouge.', 'target').ids), 'Une voiture rouge.');
  const srcIds = e.tokenize('A red car.').ids, tgtIds = e.tokenize('Une voiture rouge.', 'target').ids;
  assert.deepEqual(e.words(srcIds, tgtIds), m['en-fr'].words(srcIds, tgtIds));
  refused(() => e.detokenize([10 ** 6]), 'BAD_INPUT', 'detokenize(): ids');
});
