// tools/to_f16.py: a checkpoint stored as F16 has the same tensors (names, shapes, order, metadata),
// half the bytes, every value the nearest half of the original, and decodes the shipped examples as
// the F32 file does; a value F16 cannot hold is refused naming the tensor, and nothing is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, statSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../wasm/attnseq.js';
import { spmCheckpoint } from './safetensors.mjs';

const root = new URL('../../', import.meta.url).pathname;
const tool = path.join(root, 'tools/to_f16.py');
const header = (file) => {
  const b = readFileSync(file);
  const n = Number(b.readBigUInt64LE(0));
  return JSON.parse(b.subarray(8, 8 + n).toString('utf8'));
};

test('a shipped model as F16: same tensors and metadata, half the bytes, the same outputs', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-f16-'));
  try {
    const src = path.join(root, 'models/en-ko.safetensors'), dst = path.join(dir, 'm.safetensors');
    execFileSync('/usr/bin/python3', [tool, src, dst]);
    const a = header(src), b = header(dst);
    assert.deepEqual(Object.keys(b), Object.keys(a));
    assert.deepEqual(b.__metadata__, a.__metadata__);
    for (const k of Object.keys(a)) {
      if (k === '__metadata__') continue;
      assert.equal(b[k].dtype, 'F16', k);
      assert.deepEqual(b[k].shape, a[k].shape, k);
    }
    assert.ok(statSync(dst).size < 0.52 * statSync(src).size);
    const m32 = await loadModel(new Uint8Array(readFileSync(src))), m16 = await loadModel(new Uint8Array(readFileSync(dst)));
    for (const s of ['Jane went to the store', 'Tom ate an apple', 'Mina read the book at the library'])
      assert.equal(m16.translate(s).text, m32.translate(s).text, s);
    m32.dispose();
    m16.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a value outside the half range is refused, naming the tensor, and no file is written', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-f16-'));
  try {
    const big = path.join(dir, 'big.safetensors'), out = path.join(dir, 'out.safetensors');
    const head = Buffer.from(JSON.stringify({ 'w.weight': { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(head.length));
    const data = Buffer.alloc(8);
    data.writeFloatLE(1.5, 0);
    data.writeFloatLE(1e6, 4);
    writeFileSync(big, Buffer.concat([len, head, data]));
    const r = spawnSync('/usr/bin/python3', [tool, big, out], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /w\.weight/);
    assert.equal(existsSync(out), false);
    assert.equal(existsSync(out + '.tmp'), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a translation model keeps its tokenizers byte for byte (U8) and translates as the F32 file does', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-f16-'));
  try {
    const SPM = path.join(root, 'data/multi30k/spm');
    const src = path.join(dir, 'mt.safetensors'), dst = path.join(dir, 'mt16.safetensors');
    writeFileSync(src, spmCheckpoint(readFileSync(`${SPM}/m30k_en.model`), readFileSync(`${SPM}/m30k_fr.model`)));
    execFileSync('/usr/bin/python3', [tool, src, dst]);
    const a = header(src), b = header(dst);
    assert.deepEqual(Object.keys(b), Object.keys(a));
    const data = (file, h, k) => {
      const bytes = readFileSync(file), n = Number(bytes.readBigUInt64LE(0));
      return bytes.subarray(8 + n + h[k].data_offsets[0], 8 + n + h[k].data_offsets[1]);
    };
    for (const k of ['tokenizer.src', 'tokenizer.tgt']) {
      assert.equal(b[k].dtype, 'U8', k);
      assert.ok(data(dst, b, k).equals(data(src, a, k)), `${k}: the same bytes`);
    }
    for (const k of Object.keys(a)) if (k !== '__metadata__' && !k.startsWith('tokenizer.')) assert.equal(b[k].dtype, 'F16', k);
    const m32 = await loadModel(new Uint8Array(readFileSync(src))), m16 = await loadModel(new Uint8Array(readFileSync(dst)));
    for (const s of ['A man is riding a bike.', 'Two dogs play in the snow.']) {
      assert.deepEqual(m16.tokenize(s).ids, m32.tokenize(s).ids, s);
      assert.equal(m16.translate(s, { maxLength: 10 }).text, m32.translate(s, { maxLength: 10 }).text, s);
    }
    m32.dispose();
    m16.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an int8 checkpoint is refused, naming its first I8 tensor, and no file is written', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-f16-'));
  try {
    const out = path.join(dir, 'out.safetensors');
    const r = spawnSync('/usr/bin/python3', [tool, path.join(root, 'models/en-de.safetensors'), out], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /tensor encoder\.embedding\.weight is I8: an int8 checkpoint cannot be stored as F16/);
    assert.equal(existsSync(out), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
