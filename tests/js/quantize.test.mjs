// loadModel(bytes, { quantize: 'int8' }) (wasm/attnseq.js) and int8 checkpoints in the package: the
// quantised model equals, bit for bit, the int8 file written here by a JavaScript quantiser of its
// own (a scale per row = max |w| / 127, weights rounded half to even: docs/checkpoint-format.md);
// it translates the shipped examples as the f32 model does; bad options and a file missing a scale
// are refused with their codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { loadModel, AttnseqError } from '../../wasm/attnseq.js';

const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);
const MODEL = (n) => new URL(`../../models/${n}.safetensors`, import.meta.url);

function parse(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString('utf8'));
  const data = b.subarray(8 + n);
  const tensors = [];
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    assert.equal(t.dtype, 'F32', `${name}: the test's quantiser reads F32 files`);
    const raw = data.subarray(t.data_offsets[0], t.data_offsets[1]);
    tensors.push({ name, shape: t.shape, values: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)) });
  }
  return { metadata: header.__metadata__, tensors };
}

function write(metadata, tensors) {
  const header = { __metadata__: metadata };
  let offset = 0;
  const parts = [];
  for (const t of tensors) {
    const bytes = Buffer.from(t.values.buffer, t.values.byteOffset, t.values.byteLength);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (Buffer.byteLength(text) % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(text)));
  return new Uint8Array(Buffer.concat([len, Buffer.from(text), ...parts]));
}

// Round half to even, as the engine's nearbyint does.
function rint(x) {
  const f = Math.floor(x), d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

// The int8 checkpoint of an F32 one, computed here: every 2-D tensor but the additive score's v
// becomes I8 with NAME.scale (F32, one per row). Float32 division through doubles rounds once to
// the float result the engine's float division gives.
function quantiseFile(bytes) {
  const { metadata, tensors } = parse(bytes);
  const out = [];
  for (const t of tensors) {
    if (t.shape.length !== 2 || t.name === 'decoder.attention.v.weight') {
      out.push({ ...t, dtype: 'F32' });
      continue;
    }
    const [M, N] = t.shape;
    const q = new Int8Array(M * N), scale = new Float32Array(M);
    for (let m = 0; m < M; m++) {
      let a = 0;
      for (let n = 0; n < N; n++) a = Math.max(a, Math.abs(t.values[m * N + n]));
      const s = Math.fround(a / 127);
      scale[m] = s;
      for (let n = 0; n < N; n++) q[m * N + n] = s > 0 ? Math.max(-127, Math.min(127, rint(Math.fround(t.values[m * N + n] / s)))) : 0;
    }
    out.push({ name: t.name, shape: t.shape, dtype: 'I8', values: q });
    out.push({ name: `${t.name}.scale`, shape: [M], dtype: 'F32', values: scale });
  }
  return write(metadata, out);
}

// Every number a few decoder steps report (forced tokens, so both models take the same path).
function trace(model, text) {
  const enc = model.encode(text);
  const dec = model.decoder(enc, { topk: 3 });
  const out = [];
  for (let k = 0; k < 5 && !dec.done; k++) {
    const s = dec.step({ force: 4 + k });
    out.push(...s.query, ...s.scores, ...s.attention, ...s.context, ...s.logits);
  }
  dec.dispose();
  enc.dispose();
  return Float32Array.from(out);
}

test("loadModel(bytes, { quantize: 'int8' }) is the int8 file, to the bit, and near the f32 model", async () => {
  for (const fixture of ['gru_luong_general', 'lstm_bahdanau_additive', 'lstm_bi_2layer_bridge_luong_additive', 'gru_none']) {
    const bytes = new Uint8Array(await readFile(FIX(fixture)));
    const f32 = await loadModel(bytes);
    const onLoad = await loadModel(bytes, { quantize: 'int8' });
    const file = await loadModel(quantiseFile(bytes));
    const fileAgain = await loadModel(quantiseFile(bytes), { quantize: 'int8' });  // nothing left to quantise
    assert.equal(f32.config.quantization, 'none');
    for (const m of [onLoad, file, fileAgain]) assert.equal(m.config.quantization, 'int8', fixture);
    const text = 'w5 w6 w7 w8 w4';
    const a = trace(onLoad, text), b = trace(file, text), c = trace(fileAgain, text), f = trace(f32, text);
    assert.deepEqual(b, a, `${fixture}: the int8 file and quantize on load compute the same bits`);
    assert.deepEqual(c, a, fixture);
    let worst = 0, big = 1;
    for (let i = 0; i < f.length; i++) worst = Math.max(worst, Math.abs(a[i] - f[i])), big = Math.max(big, Math.abs(f[i]));
    assert.ok(worst < 0.03 * big, `${fixture}: int8 within 3 % of the f32 model's numbers (max difference ${worst})`);
    assert.ok(worst > 0, `${fixture}: and really int8 (not the f32 numbers)`);
    for (const m of [f32, onLoad, file, fileAgain]) m.dispose();
  }
});

test('an int8 shipped model translates its examples as the f32 model does', async () => {
  const index = JSON.parse(readFileSync(new URL('../../models/index.json', import.meta.url), 'utf8'));
  // The single-file models (the SIGMORPHON languages' ensembles ship int8 already where dev kept it:
  // tests/cpp/test_models.cpp measures them as shipped).
  for (const { id, examples } of index.models.filter((m) => m.file)) {
    const f32 = await loadModel(MODEL(id)), q8 = await loadModel(MODEL(id), { quantize: 'int8' });
    for (const text of examples) assert.equal(q8.translate(text).text, f32.translate(text).text, `${id}: "${text}"`);
    f32.dispose();
    q8.dispose();
  }
});

test('bad options and an int8 file missing a scale are refused with their codes', async () => {
  const bytes = new Uint8Array(await readFile(FIX('gru_luong_dot')));
  const code = async (p) => {
    try {
      await p;
    } catch (e) {
      assert.ok(e instanceof AttnseqError, String(e));
      return [e.code, e.message];
    }
    assert.fail('should have been refused');
  };
  let [c, m] = await code(loadModel(bytes, { quantize: 'int4' }));
  assert.equal(c, 'BAD_INPUT');
  assert.match(m, /option 'quantize' is "int4"; it must be 'int8'/);
  [c, m] = await code(loadModel(bytes, { quantise: 'int8' }));
  assert.equal(c, 'BAD_INPUT');
  assert.match(m, /unknown option 'quantise' \(did you mean 'quantize'/);
  [c] = await code(loadModel(bytes, null));
  assert.equal(c, 'BAD_INPUT');
  // An int8 file without one of its scales: named, as a bad checkpoint (also when quantising on load).
  const q8 = quantiseFile(bytes);
  const b = Buffer.from(q8);
  const n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString('utf8'));
  delete header['decoder.combine.weight.scale'];
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  const broken = new Uint8Array(Buffer.concat([len, Buffer.from(text), b.subarray(8 + n)]));
  for (const options of [{}, { quantize: 'int8' }]) {
    [c, m] = await code(loadModel(broken, options));
    assert.equal(c, 'BAD_CHECKPOINT');
    assert.match(m, /tensor 'decoder.combine.weight' is I8 but its scales 'decoder.combine.weight.scale' are missing/);
  }
  const ok = await loadModel(q8);  // the engine is still fine
  assert.equal(ok.config.quantization, 'int8');
  ok.dispose();
});

test('an int8 scale whose weights overflow is refused naming tensor and row, not decoded to NaN', async () => {
  const bytes = new Uint8Array(await readFile(FIX('gru_luong_dot')));
  const q8 = quantiseFile(bytes);
  const b = Buffer.from(q8);
  const n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString('utf8'));
  // Row 2's scale of the source embedding set to 1e38 (127 x 1e38 is inf), and of the output layer to
  // 1e30 (finite, but products of such weights overflow: once garbage with score 0).
  for (const [name, scale] of [['encoder.embedding.weight', 1e38], ['decoder.out.weight', 1e30]]) {
    const bad = Buffer.from(b);
    const q = header[name], s = header[`${name}.scale`];
    const N = q.shape[1];
    let big = 0;
    for (let k = 0; k < N; k++) big = Math.max(big, Math.abs(bad.readInt8(8 + n + q.data_offsets[0] + 2 * N + k)));
    assert.ok(big > 0, 'row 2 holds a weight');
    bad.writeFloatLE(scale, 8 + n + s.data_offsets[0] + 4 * 2);
    await assert.rejects(loadModel(new Uint8Array(bad)), (e) => {
      assert.ok(e instanceof AttnseqError, String(e));
      assert.equal(e.code, 'BAD_CHECKPOINT');
      assert.match(e.message, new RegExp(`tensor '${name}' row 2: its scale ${String(scale).replace('+', '\\+')} times its weight ${big} is .* beyond the largest weight a checkpoint may hold`));
      return true;
    }, name);
  }
  const ok = await loadModel(q8);  // the engine is still fine
  assert.ok(Number.isFinite(ok.translate('w5 w6 w7').score));
  ok.dispose();
});
