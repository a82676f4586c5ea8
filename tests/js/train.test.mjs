// Training through the npm API: the loss falls on a toy task within a bounded number of steps,
// the trained model loads and translates, bad options are refused with AttnseqError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTrainer, loadModel, AttnseqError } from '../../wasm/attnseq.js';

test('createTrainer: loss falls on the copy task and the model translates', async () => {
  const t = await createTrainer({ task: 'copy', minLength: 1, maxLength: 5, model: { hidden: 32, embedding: 16 },
    steps: 300, lr: 0.01, warmup: 20, seed: 3 });
  const first = t.step(1);
  let last;
  for (let i = 0; i < 6; i++) last = t.step(50);
  assert.ok(first.loss > 2, `first loss ${first.loss}`);
  assert.ok(last.loss < first.loss * 0.35, `loss ${first.loss} -> ${last.loss}`);
  assert.ok(last.tokensPerSecond > 0);
  const ev = t.evaluate(100);
  assert.ok(ev.tokenAccuracy > 0.7, `token accuracy ${ev.tokenAccuracy}`);
  // The default seed is the held-out seed of `attnseq eval` and of models/README.md's tables.
  assert.deepEqual(ev, t.evaluate(100, 20261130));
  const bytes = t.save();
  const model = await loadModel(bytes);
  assert.equal(model.config.task, 'copy');
  assert.ok(model.translate('abc').tokens.length > 0);
  assert.ok(t.saveState().length > 0);
  model.dispose();
  t.dispose();
  assert.throws(() => t.step(), (e) => e.code === 'DISPOSED');
});

test('createTrainer refuses bad options with AttnseqError', async () => {
  await assert.rejects(createTrainer({ task: 'nope' }), (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && /dates/.test(e.message));
  await assert.rejects(createTrainer({ task: 'copy', model: { style: 'weird' } }), (e) => e.code === 'BAD_INPUT');
  await assert.rejects(createTrainer({ task: 'copy', lr: -1 }), (e) => e.code === 'BAD_INPUT');
  await assert.rejects(createTrainer({ task: { tsv: 'no tab here\n' } }), (e) => e.code === 'BAD_INPUT' && /line 1/.test(e.message));
  const t = await createTrainer({ task: { tsv: 'a b\tx y\nc\tz\n', tokenizer: 'word' }, model: { hidden: 8 }, steps: 5 });
  assert.ok(t.step(5).loss > 0);
  t.dispose();
});
