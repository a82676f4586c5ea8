// The JavaScript API against the engine: shapes, a hand-driven step loop equals translate(), beam 1
// equals greedy, attention rows sum to 1, and every kind of bad input throws AttnseqError with the
// right code while the model keeps answering correctly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadModel, AttnseqError } from '../../wasm/attnseq.js';

const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);

test('translate returns consistent shapes and attention rows that sum to 1', async () => {
  const model = await loadModel(FIX('gru_luong_general'));
  assert.equal(model.config.style, 'luong');
  assert.equal(model.config.score, 'general');
  assert.equal(model.srcVocab.length, model.config.srcVocabSize);
  const r = model.translate('w5 w6 w7 w8 w4', { beam: 3 });
  assert.equal(r.cols, 5);
  assert.deepEqual(r.srcTokens, ['w5', 'w6', 'w7', 'w8', 'w4']);
  assert.equal(r.rows, r.tokens.length);
  assert.equal(r.attention.length, r.rows * r.cols);
  assert.equal(r.hypotheses.length, 3);
  for (const h of r.hypotheses)
    for (let k = 0; k < h.tokens.length; k++) {
      const row = h.attention.subarray(k * r.cols, (k + 1) * r.cols);
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    }
  model.dispose();
});

test('a hand-driven step loop equals translate(); beam 1 equals greedy', async () => {
  const model = await loadModel(await readFile(FIX('lstm_bahdanau_additive')));
  const enc = model.encode('w5 w9 w7 w4');
  const dec = model.decoder(enc, { maxLength: 8 });
  const toks = [], rows = [];
  while (!dec.done) {
    const s = dec.step();
    toks.push(s.token);
    rows.push(...s.attention);
    assert.equal(s.query.length, model.config.hidden);
    assert.equal(s.context.length, model.config.encoderOutput);
    assert.equal(s.scores.length, 4);
    assert.equal(s.topk.length, 5);
    assert.ok(s.topk[0].p >= s.topk[1].p);
  }
  const greedy = model.translate(enc, { maxLength: 8 });
  const beam1 = model.translate(enc, { maxLength: 8, beam: 1 });
  assert.deepEqual(greedy.tokens, toks);
  assert.deepEqual(beam1.tokens, toks);
  assert.deepEqual(Array.from(greedy.attention), rows);
  dec.dispose(); enc.dispose(); model.dispose();
});

test('bad input gives AttnseqError with the right code, and the model still answers', async () => {
  const model = await loadModel(FIX('gru_luong_dot'));
  const want = model.translate('w5 w6 w7').tokens;
  const cases = [
    [() => model.translate(''), 'BAD_INPUT'],
    [() => model.translate([4, 5, 99]), 'BAD_INPUT'],
    [() => model.translate([4, NaN]), 'BAD_INPUT'],
    [() => model.translate(42), 'BAD_INPUT'],
    [() => model.translate('w5', { beam: 0 }), 'BAD_INPUT'],
    [() => model.translate('w5', { beam: NaN }), 'BAD_INPUT'],
    [() => model.translate('w5', { maxLength: 1e9 }), 'BAD_INPUT'],
    [() => model.translate('w5 '.repeat(2000)), 'TOO_LONG'],
    [() => model.translate('\ud800'), 'BAD_INPUT'],
  ];
  for (const [f, code] of cases) {
    assert.throws(f, (e) => e instanceof AttnseqError && e.code === code, String(f));
    assert.deepEqual(model.translate('w5 w6 w7').tokens, want);
  }
  const enc = model.encode('w5 w6');
  const dec = model.decoder(enc, { maxLength: 2 });
  assert.throws(() => dec.step({ attention: [0, 0] }), (e) => e.code === 'BAD_INPUT' && /sums to 0/.test(e.message));
  assert.throws(() => dec.step({ attention: [1] }), (e) => e.code === 'BAD_INPUT');
  dec.step(); dec.step();
  assert.equal(dec.done, true);
  assert.throws(() => dec.step(), (e) => e.code === 'BAD_INPUT' && /force a token/.test(e.message));
  dec.dispose();
  assert.throws(() => dec.step(), (e) => e.code === 'DISPOSED');
  enc.dispose();
  model.dispose();
  assert.throws(() => model.translate('w5'), (e) => e.code === 'DISPOSED');
});

test('truncated and corrupted checkpoints give BAD_CHECKPOINT', async () => {
  const good = await readFile(FIX('gru_luong_dot'));
  for (const n of [0, 7, 8, 100, good.length - 1]) {
    await assert.rejects(loadModel(good.subarray(0, n)), (e) => e instanceof AttnseqError && e.code === 'BAD_CHECKPOINT');
  }
  const bad = Buffer.from(good);
  bad.write('XXXX', 12, 'latin1');
  await assert.rejects(loadModel(bad), (e) => e.code === 'BAD_CHECKPOINT');
  const m = await loadModel(good);
  assert.ok(m.translate('w5 w6').tokens.length > 0);
  m.dispose();
});

test('options: seeded sampling repeats, a prefix is kept, replaceUnknowns copies the attended source token', async () => {
  const model = await loadModel(FIX('gru_luong_general'));
  const a = model.translate('w5 w6 w7 w8 w4', { temperature: 1.2, seed: 7 });
  const b = model.translate('w5 w6 w7 w8 w4', { temperature: 1.2, seed: 7 });
  assert.deepEqual(a.tokens, b.tokens);
  const p = model.translate('w5 w6 w7 w8 w4', { prefix: 'w9 w10' });
  assert.deepEqual(p.tgtTokens.slice(0, 2), ['w9', 'w10']);
  const plain = model.translate('w5 w6 w7 w8 w4');
  assert.ok(plain.tgtTokens.includes('<unk>'), 'this fixture emits <unk>');
  const rep = model.translate('w5 w6 w7 w8 w4', { replaceUnknowns: true });
  for (let k = 0; k < rep.rows; k++) {
    if (plain.tgtTokens[k] !== '<unk>') continue;
    const row = Array.from(rep.attention.subarray(k * rep.cols, (k + 1) * rep.cols));
    assert.equal(rep.tgtTokens[k], rep.srcTokens[row.indexOf(Math.max(...row))]);
  }
  assert.ok(!rep.text.includes('<unk>'));
  assert.equal(model.config.embedding, 8);
  model.dispose();
});

test('alignment exports: JSON round-trips, CSV has a header and a row per token, Pharaoh pairs', async () => {
  const { alignmentToJSON, alignmentToCSV, alignmentToPharaoh } = await import('../../wasm/attnseq.js');
  const model = await loadModel(FIX('gru_luong_dot'));
  const r = model.translate('w5 w6 w7');
  const j = JSON.parse(alignmentToJSON(r));
  assert.deepEqual(j.srcTokens, r.srcTokens);
  assert.equal(j.attention.length, r.rows);
  assert.ok(Math.abs(j.attention[0][1] - r.attention[1]) < 1e-7);
  const csv = alignmentToCSV(r).trim().split('\n');
  assert.equal(csv.length, r.rows + 1);
  assert.equal(csv[0], ',w5,w6,w7');
  const pairs = alignmentToPharaoh(r).split(' ');
  assert.equal(pairs.length, r.rows);
  for (const [k, pair] of pairs.entries()) assert.match(pair, new RegExp(`^[0-2]-${k}$`));
  model.dispose();
});

test("an encoding is decoded only by the model that made it (BAD_INPUT, never a read past the memory)", async () => {
  const { createTrainer } = await import('../../wasm/attnseq.js');
  const small = await loadModel(FIX('gru_luong_dot'));                  // H = 12
  const wide = await loadModel(FIX('lstm_bi_2layer_bridge_luong_additive'));
  const same = await loadModel(FIX('gru_luong_dot'));                   // same file: still another model
  const t = await createTrainer({ task: 'copy', model: { hidden: 64 }, steps: 1 });
  const trained = await t.model();                                      // H = 64, a char model
  t.dispose();
  const encSmall = small.encode('w5 w6 w7');
  const encWide = wide.encode('w5 w6 w7 w8 w9 w10 w11');
  const encBig = trained.encode('abc');
  const foreign = (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && /encoded by another model/.test(e.message);
  for (const [m, e] of [[small, encWide], [wide, encSmall], [small, encBig], [trained, encSmall], [same, encSmall]]) {
    assert.throws(() => m.decoder(e), foreign);
    assert.throws(() => m.translate(e), foreign);
    assert.throws(() => m.translate(e, { beam: 3 }), foreign);
  }
  // Every model still decodes its own encodings, as before.
  assert.deepEqual(small.translate(encSmall).tokens, small.translate('w5 w6 w7').tokens);
  assert.deepEqual(same.translate(encSmall.ids).tokens, small.translate(encSmall).tokens);
  assert.ok(wide.decoder(encWide).step().attention.length === 7);
  assert.ok(trained.translate(encBig).tokens.length > 0);
  for (const x of [encSmall, encWide, encBig, small, wide, same, trained]) x.dispose();
});

test('unknown option names are refused with BAD_INPUT naming the option and the nearest valid one', async () => {
  const { createTrainer, init } = await import('../../wasm/attnseq.js');
  const model = await loadModel(FIX('gru_luong_dot'));
  const want = model.translate('w5 w6 w7').tokens;
  const enc = model.encode('w5 w6 w7');
  const unknown = (name, near) => (e) =>
    e instanceof AttnseqError && e.code === 'BAD_INPUT' && e.message.includes(`'${name}'`) && e.message.includes(`did you mean '${near}'`);
  assert.throws(() => model.translate('w5 w6 w7', { bem: 3 }), unknown('bem', 'beam'));
  assert.throws(() => model.translate(enc, { maxlength: 3 }), unknown('maxlength', 'maxLength'));
  assert.throws(() => model.translate('w5', { lenghtPenalty: 1 }), unknown('lenghtPenalty', 'lengthPenalty'));
  assert.throws(() => model.decoder(enc, { topK: 3 }), unknown('topK', 'topk'));
  assert.throws(() => model.decoder(enc, { beam: 2 }), (e) => e.code === 'BAD_INPUT' && /'beam'/.test(e.message));
  const dec = model.decoder(enc);
  assert.throws(() => dec.step({ forced: 5 }), unknown('forced', 'force'));
  assert.throws(() => dec.step({ atention: [1, 0, 0] }), unknown('atention', 'attention'));
  assert.throws(() => dec.step(null), (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT');
  assert.equal(dec.length, 0, 'a refused step changes nothing');
  await assert.rejects(createTrainer({ task: 'copy', stpes: 5 }), unknown('stpes', 'steps'));
  await assert.rejects(createTrainer({ task: 'copy', model: { hiden: 8 } }), unknown('hiden', 'hidden'));
  await assert.rejects(createTrainer({ task: { tsv: 'a\tb\n', tokeniser: 'char' } }), unknown('tokeniser', 'tokenizer'));
  await assert.rejects(init({ locatefile: () => 'x' }), unknown('locatefile', 'locateFile'));
  assert.throws(() => model.tokenize('w5', 'src'), (e) => e.code === 'BAD_INPUT' && /'source' or 'target'/.test(e.message));
  // decoder topk is checked when the decoder is made, not at every step.
  for (const topk of [65, -1, 2.7, NaN, '3', 2 ** 32 + 3])
    assert.throws(() => model.decoder(enc, { topk }), (e) => e.code === 'BAD_INPUT' && /topk/.test(e.message), String(topk));
  // Everything keeps working, and the valid spellings do what they say.
  assert.deepEqual(model.translate('w5 w6 w7').tokens, want);
  assert.equal(model.translate('w5 w6 w7', { beam: 3 }).hypotheses.length, 3);
  assert.equal(dec.step().topk.length, 5);
  dec.dispose(); enc.dispose(); model.dispose();
});
