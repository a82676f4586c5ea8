// The numbers a JavaScript step returns, against the PyTorch twin's recorded values
// (tests/data/parity/*.json, written by tools/pytorch/make_fixtures.py; ported_opennmt_mlp by
// port_example.py, a model that is not the twin, exported by names), through the package installed
// from its own npm pack tarball: scores, attention, context and logits per step, and logProb and
// topk[].p re-derived here in double precision from the twin's logits. Tolerances are the C++ parity
// test's (tests/cpp/test_parity.cpp): 1e-4 of the largest magnitude for logits and scores, 1e-5 for weights.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, installPacked } from './packed.mjs';

const DIR = path.join(ROOT, 'tests/data/parity');
let pkg, cleanup;
before(async () => { ({ pkg, cleanup } = await installPacked()); });
after(async () => { await cleanup?.(); });

const maxAbs = (a) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 1);
function logSoftmax(logits) {
  const m = Math.max(...logits);
  const lse = m + Math.log(logits.reduce((s, x) => s + Math.exp(x - m), 0));
  return logits.map((x) => x - lse);
}
function close(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++)
    assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}] = ${got[i]}, the twin has ${want[i]} (tolerance ${tol})`);
}

test('dec.step() numbers equal the PyTorch twin on every fixture', async () => {
  const names = (await readdir(DIR)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.ok(names.length >= 21, `expected the 21 parity fixtures, found ${names.length}`);
  let steps = 0;
  for (const name of names) {
    const fx = JSON.parse(await readFile(path.join(DIR, `${name}.json`), 'utf8'));
    const model = await pkg.loadModel(path.join(DIR, `${name}.safetensors`));
    const attention = fx.config.style !== 'none';
    assert.equal(model.config.attentionQueryBias, fx.config.attn_query_bias === true, `${name}: attentionQueryBias`);
    for (const cs of fx.cases) {
      const where = `${name}, source of length ${cs.src.length}`;
      // Greedy through translate() gives the twin's tokens.
      assert.deepEqual(model.translate(cs.src, { maxLength: fx.max_len }).tokens, cs.tokens, `${where}: greedy tokens`);
      const enc = model.encode(cs.src);
      const dec = model.decoder(enc, { maxLength: fx.max_len, topk: 4 });
      for (let k = 0; k < cs.tokens.length; k++) {
        const at = `${where}, step ${k}`;
        const want = cs.logits[k];
        const s = dec.step({ force: cs.tokens[k] });
        const scale = maxAbs(want);
        close(s.logits, want, 1e-4 * scale, `${at}: logits`);
        const lsm = logSoftmax(want);
        assert.ok(Math.abs(s.logProb - lsm[cs.tokens[k]]) <= 2e-4 * scale, `${at}: logProb ${s.logProb} vs ${lsm[cs.tokens[k]]}`);
        // topk: the twin's most probable tokens, in order, with the twin's probabilities.
        assert.equal(s.topk.length, 4, `${at}: topk length`);
        const kth = [...want].sort((a, b) => b - a)[3];
        assert.equal(s.topk[0].token, cs.tokens[k], `${at}: the forced token is the twin's argmax`);
        for (let i = 0; i < s.topk.length; i++) {
          const { token, p } = s.topk[i];
          assert.ok(want[token] >= kth - 1e-4 * scale, `${at}: topk[${i}] = ${token} is not among the twin's 4 best`);
          assert.ok(Math.abs(p - Math.exp(lsm[token])) <= 2e-4 * scale, `${at}: topk[${i}].p ${p} vs ${Math.exp(lsm[token])}`);
          if (i > 0) assert.ok(s.topk[i - 1].p >= p, `${at}: topk is sorted`);
        }
        if (attention) {
          // score_offset: a ported model's v bias, which its scores carry and attnseq's file leaves out
          const scores = cs.scores[k].map((x) => x - (fx.score_offset ?? 0));
          close(s.scores, scores, 1e-4 * maxAbs(scores), `${at}: scores`);
          close(s.attention, cs.attention[k], 1e-5, `${at}: attention`);
          close(s.context, cs.context[k], 1e-4, `${at}: context`);
        } else {
          // Vanilla has no attention: the engine reports zero weights (README, "Decisions").
          assert.ok(s.attention.every((w) => w === 0), `${at}: vanilla attention is all zeros`);
        }
        steps++;
      }
      dec.dispose();
      enc.dispose();
    }
    model.dispose();
  }
  assert.ok(steps > 100, `only ${steps} steps compared`);
});
