// translate(input, { beam, trace: true }) through the package: the beam's hypotheses at every step,
// each pointing at the one it extended (the page's beam unfolding). The trace agrees with the
// answers it led to, changes nothing about them, and bad requests are refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadModel, createEnsemble, AttnseqError } from '../../wasm/attnseq.js';

const MODEL = new URL('../../models/en-ko.safetensors', import.meta.url);
const SRC = 'Jane went to the store';

test('a beam trace: live nodes are extended, ended ones are not, and every answer ends a traced path', async () => {
  const model = await loadModel(await readFile(MODEL));
  for (const [beam, lengthPenalty] of [[2, 1], [4, 0.6], [6, 1.4]]) {
    const plain = model.translate(SRC, { beam, lengthPenalty });
    const r = model.translate(SRC, { beam, lengthPenalty, trace: true });
    const { beamTrace, ...rest } = r;
    assert.deepEqual(rest, plain, 'tracing changes no result');
    assert.ok(Array.isArray(beamTrace) && beamTrace.length >= plain.tokens.length);
    const path = (k, i) => {
      const ids = [];
      for (let j = k; j >= 0; j--) { ids.unshift(beamTrace[j][i].token); i = beamTrace[j][i].parent; }
      assert.equal(i, -1, 'a path starts at the start');
      return ids;
    };
    beamTrace.forEach((nodes, k) => {
      assert.ok(nodes.filter((n) => !n.ended).length <= beam, `step ${k}: at most ${beam} live`);
      nodes.forEach((n, i) => {
        assert.equal(n.text, model.tgtVocab[n.token]);
        assert.ok(Math.abs(n.score - n.logProb / Math.pow(k + 1, lengthPenalty)) <= 1e-5 * Math.abs(n.logProb) + 1e-6);
        if (i > 0) assert.ok(nodes[i - 1].logProb >= n.logProb, 'best first');
        if (k === 0) assert.equal(n.parent, -1);
        else {
          const p = beamTrace[k - 1][n.parent];
          assert.ok(p && !p.ended, `step ${k} node ${i}: its parent is a live node of step ${k - 1}`);
          assert.ok(n.logProb <= p.logProb);
        }
        if (n.token === model.config.eos) assert.ok(n.ended);
      });
    });
    for (const h of r.hypotheses) {
      const k = h.tokens.length - 1;
      const i = beamTrace[k].findIndex((n, j) => n.ended && n.logProb === h.logProb && path(k, j).join() === h.tokens.join());
      assert.ok(i >= 0, `hypothesis "${h.text}" ends a path of the trace`);
    }
  }
  model.dispose();
});

test('trace is refused where there is no beam to record, naming why; the model keeps answering', async () => {
  const model = await loadModel(await readFile(MODEL));
  const want = model.translate(SRC).tokens;
  const refused = (fn, re) => assert.throws(fn, (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && re.test(e.message));
  refused(() => model.translate(SRC, { trace: true }), /beam must be at least 2/);
  refused(() => model.translate(SRC, { beam: 3, trace: 'yes' }), /option 'trace' must be true or false/);
  refused(() => model.translateBatch([SRC], { beam: 3, trace: true }), /unknown option 'trace'/);
  const pair = createEnsemble([model, model]);
  refused(() => pair.translate(SRC, { beam: 3, trace: true }), /ensemble's beam is not recorded/);
  assert.deepEqual(model.translate(SRC).tokens, want);
  assert.equal(model.translate(SRC, { beam: 3, trace: false }).beamTrace, undefined);
  model.dispose();
});
