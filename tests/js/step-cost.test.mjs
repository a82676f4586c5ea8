// What dec.step() costs per call, checked by counting instead of timing: a step is one call of the
// module's plain export `_attnseq_decoder_step` and no Embind method (wasm/bindings.cpp), whatever
// its options; each record is one fresh copy that later steps and a growing wasm memory leave
// unchanged (so no view of wasm memory is ever handed out); an ids-only model's token texts are
// `#id` on every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel, memoryStats } from '../../wasm/attnseq.js';
import { referenceModel } from '../../bench/reference_model.mjs';

const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);

// Every Embind method of the module's bound classes (and of their shared base: delete, clone, ...)
// wrapped to count its calls; returns the counts and a function that puts the originals back.
function countEmbindCalls(M) {
  const counts = {};
  const undo = [];
  const protos = ['Model', 'Source', 'Decoder', 'Trainer'].map((c) => [c, M[c].prototype]);
  protos.push(['ClassHandle', Object.getPrototypeOf(M.Decoder.prototype)]);
  for (const [cls, proto] of protos) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (name === 'constructor' || typeof d.value !== 'function') continue;
      const f = d.value;
      proto[name] = function (...args) {
        counts[`${cls}.${name}`] = (counts[`${cls}.${name}`] ?? 0) + 1;
        return f.apply(this, args);
      };
      undo.push(() => { proto[name] = f; });
    }
  }
  assert.ok(undo.length >= 10, `only ${undo.length} Embind methods found to watch`);
  return { counts, restore: () => undo.forEach((u) => u()) };
}


const snapshot = (s) => ({ ...s, attention: Array.from(s.attention), scores: Array.from(s.scores), query: Array.from(s.query),
  context: Array.from(s.context), logits: Array.from(s.logits), topk: s.topk.map((t) => ({ ...t })) });

test('a step is one call of the plain export and no Embind method, with or without options', async () => {
  const model = await loadModel(FIX('gru_luong_general'));
  const M = model._M;
  const enc = model.encode('w5 w6 w7 w8 w4');
  // One step first: Emscripten's export stub replaces itself with the wasm function on its first call.
  const warm = model.decoder(enc);
  warm.step();
  warm.dispose();
  const exported = M._attnseq_decoder_step;
  assert.equal(typeof exported, 'function', 'the module exports _attnseq_decoder_step');
  let exportCalls = 0;
  M._attnseq_decoder_step = function (...args) { exportCalls++; return exported.apply(this, args); };
  const watch = countEmbindCalls(M);
  try {
    const dec = model.decoder(enc, { topk: 3, maxLength: 20 });  // creation may use Embind: not counted
    for (const k of Object.keys(watch.counts)) delete watch.counts[k];
    exportCalls = 0;
    const steps = [
      () => dec.step(),
      () => dec.step({}),
      () => dec.step({ force: 5 }),
      () => dec.step({ force: 'w9' }),  // a string goes through the tokenizer (an Embind call), checked below
      () => dec.step({ attention: [0, 1, 0, 0, 1] }),
      () => dec.step({ force: 6, attention: new Float32Array([1, 0, 0, 0, 0]) }),
    ];
    const records = [];
    for (const [i, step] of steps.entries()) {
      const before = { ...watch.counts }, calls = exportCalls;
      records.push(step());
      assert.equal(exportCalls - calls, 1, `step ${i}: one call of the export`);
      const embind = Object.keys(watch.counts).filter((k) => watch.counts[k] !== (before[k] ?? 0));
      // Only a forced token given as text may tokenize it (Model.tokenize); nothing else crosses.
      assert.deepEqual(embind, i === 3 ? ['Model.tokenize'] : [], `step ${i}: Embind methods called`);
    }
    // The override reached the engine through its buffer: the rows come back as given, renormalised.
    assert.deepEqual(Array.from(records[4].attention), [0, 0.5, 0, 0, 0.5]);
    assert.deepEqual(Array.from(records[5].attention), [1, 0, 0, 0, 0]);
    assert.equal(records[5].token, 6);
    assert.equal(records[3].text, 'w9');
    // An engine error still arrives with its code and message (read through Embind, off the hot path).
    assert.throws(() => dec.step({ attention: [0, 0, 0, 0, 0] }), (e) => e.code === 'BAD_INPUT' && /sums to 0/.test(e.message));
    assert.equal(dec.step({ force: 5 }).index, steps.length, 'the refused step changed nothing');
    dec.dispose();
  } finally {
    watch.restore();
    M._attnseq_decoder_step = exported;
  }
  enc.dispose();
  model.dispose();
});

test('each record is its own copy: later steps and a growing wasm memory leave it unchanged', async () => {
  const model = await loadModel(FIX('gru_luong_general'));
  const M = model._M;
  const enc = model.encode('w5 w6 w7 w8 w4');
  const dec = model.decoder(enc, { maxLength: 40, topk: 4 });
  const later = model.decoder(enc, { maxLength: 40, topk: 4 });  // stepped only after the growth
  const FORCE = [5, 9, 7, 4, 10, 6];
  const records = [], copies = [];
  for (const id of FORCE) {
    const s = dec.step({ force: id });
    records.push(s);
    copies.push(snapshot(s));
  }
  const buffers = new Set(records.map((s) => s.query.buffer));
  assert.equal(buffers.size, records.length, 'one buffer per record');
  for (const s of records) {
    assert.notEqual(s.query.buffer, M.HEAPF32.buffer, 'a record is not a view of wasm memory');
    for (const f of ['attention', 'scores', 'context', 'logits']) assert.equal(s[f].buffer, s.query.buffer, `${f} shares the record's buffer`);
  }
  for (const [k, s] of records.entries()) assert.deepEqual(snapshot(s), copies[k], `step ${k} after the later steps`);

  const grownFrom = (await memoryStats()).memoryBytes;
  // The bench's reference model with zero weights: at H = 512 large enough that loading it grows the
  // wasm memory.
  const big = await loadModel(referenceModel(512, 1000));
  const grownTo = (await memoryStats()).memoryBytes;
  assert.ok(grownTo > grownFrom, `loading an 18 MB model did not grow the wasm memory (${grownFrom} bytes): the check below would prove nothing`);
  big.dispose();
  for (const [k, s] of records.entries()) assert.deepEqual(snapshot(s), copies[k], `step ${k} after the wasm memory grew`);
  // A decoder made before the growth reads the new memory: the same steps, the same records.
  for (const [k, id] of FORCE.entries()) assert.deepEqual(snapshot(later.step({ force: id })), copies[k], `step ${k} stepped after the growth`);
  dec.dispose(); later.dispose(); enc.dispose(); model.dispose();
});

test("an ids-only model's step texts are #id, the same on every step", async () => {
  const model = await loadModel(FIX('tensors_only'));
  assert.equal(model.tgtVocab, null);
  const enc = model.encode([4, 6, 9]);
  for (let round = 0; round < 2; round++) {
    const dec = model.decoder(enc, { maxLength: 8, topk: model.config.tgtVocabSize });
    while (!dec.done) {
      const s = dec.step();
      assert.equal(s.text, `#${s.token}`);
      assert.equal(s.topk.length, model.config.tgtVocabSize);
      for (const t of s.topk) assert.equal(t.text, `#${t.token}`);
    }
    dec.dispose();
  }
  enc.dispose();
  model.dispose();
});
