// The package's subword helpers: model.words() (the word-level view of any alignment, as translate()
// gives for its best hypothesis and the demo page for a decode in progress) and model.detokenize() (ids
// back to text). Bad arguments are refused with BAD_INPUT naming what was wrong, and the model keeps
// working after each refusal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadModel, AttnseqError } from '../../wasm/attnseq.js';
import { spmCheckpoint } from './safetensors.mjs';

const SPM = 'data/multi30k/spm';
let model, wordModel;
before(async () => {
  model = await loadModel(spmCheckpoint(await readFile(`${SPM}/m30k_en.model`), await readFile(`${SPM}/m30k_fr.model`)));
  wordModel = await loadModel(await readFile('tests/data/parity/gru_luong_general.safetensors'));
});
after(() => { model?.dispose(); wordModel?.dispose(); });

const refused = (fn, re) => assert.throws(fn, (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && re.test(e.message), `expected BAD_INPUT ${re}`);

test('words() of a whole translation equals translate().words; a prefix of it gives the words so far', () => {
  const text = 'Skateboarders photographed unbelievably enthusiastic grandmothers.';
  const r = model.translate(text, { maxLength: 12 });
  const src = model.tokenize(text).ids;
  const v = model.words(src, r.tokens, r.attention);
  assert.deepEqual(v, r.words);
  assert.ok(v.cols < src.length, 'some source word has several pieces');
  assert.deepEqual(v.source.join(' '), 'Skateboarders photographed unbelievably enthusiastic grandmothers .');
  // The first three steps alone: the words they make, their rows the mean of those steps.
  const part = model.words(src, r.tokens.slice(0, 3), r.attention.subarray(0, 3 * src.length));
  const covered = part.targetSpans.reduce((n, [, c]) => n + c, 0);
  assert.ok(covered <= 3 && part.rows >= 1);
  for (const [f, n] of part.targetSpans) assert.ok(f + n <= 3);
  const alone = model.words(src, r.tokens, null);
  assert.equal(alone.attention, null, 'no weights: the words alone');
  assert.deepEqual(alone.target, r.words.target);
});

test('detokenize() inverts tokenize() for ordinary text, per side', () => {
  for (const text of ['A man is riding a bike.', 'Trois enfants jouent dans l\'eau près d\'un château.']) {
    const side = /Trois/.test(text) ? 'target' : 'source';
    assert.equal(model.detokenize(model.tokenize(text, side).ids, side), text);
  }
  assert.equal(wordModel.detokenize(wordModel.tokenize('w5 w6 w7').ids, 'source'), 'w5 w6 w7', 'words are spaced');
  const r = model.translate('A dog runs.', { maxLength: 8 });
  assert.equal(model.detokenize(r.tokens), r.text, 'the target side by default, as translate() writes it');
});

test('bad arguments to words() and detokenize() are refused by name, and the model keeps working', () => {
  const src = model.tokenize('A red car.').ids;
  refused(() => wordModel.words([4, 5], [4], null), /already words/);
  refused(() => model.words('A red car', [4], null), /takes token ids \(model.tokenize\(text\).ids\), not text/);
  refused(() => model.words({ length: 2 }, [4], null), /source ids must be/);
  refused(() => model.words(src, [4, 8000], null), /target ids\[1\] = 8000 is outside/);
  refused(() => model.words(src, [4, -1], null), /target ids\[1\] = -1/);
  refused(() => model.words(src, [4, 1.5], null), /target ids\[1\] is 1.5/);
  refused(() => model.words(src, [4], new Float32Array(src.length + 1)), /holds \d+ weights, not 1 x \d+/);
  refused(() => model.words(src, [4], 'weights'), /Float32Array/);
  refused(() => model.words(src, [4], Float32Array.from(src, (_, i) => (i === 2 ? NaN : 0.1))), /attention\[2\] is NaN/);
  refused(() => model.detokenize([1, 2, 9000]), /ids\[2\] = 9000 is outside/);
  refused(() => model.detokenize([5], 'left'), /side must be 'source' or 'target'/);
  refused(() => model.detokenize('abc'), /must be text or an array/);
  const r = model.translate('A red car.', { maxLength: 6 });
  assert.deepEqual(model.words(src, r.tokens, r.attention), r.words, 'still working');
});

test('text over the source limit is TOO_LONG after the tokenizer, and the model keeps working', () => {
  const long = 'A dog runs. '.repeat(400);   // 4,800 characters, about 1,600 pieces
  assert.ok(model.tokenize(long).ids.length > 1024, 'the tokenizer itself takes it');
  for (const call of [() => model.translate(long), () => model.encode(long), () => model.translateBatch(['A dog.', long])])
    assert.throws(call, (e) => e instanceof AttnseqError && e.code === 'TOO_LONG' && /source/.test(e.message), 'TOO_LONG naming the source');
  const r = model.translate('A dog runs.', { maxLength: 5 });
  assert.equal(r.words.source.join(' '), 'A dog runs .', 'still working');
});
