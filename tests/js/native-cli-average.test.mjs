// Checkpoint averaging on the native command line: `train --keep-epochs` keeps each epoch's final
// weights (OUT.epochN.safetensors, the same files whether or not the run was stopped and resumed),
// and `attnseq average` writes their mean, weight by weight; checkpoints of another architecture,
// other vocabularies or int8 are refused, naming the file. Fails if the binary is missing
// (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage } from './native.mjs';
import { headerOf } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const D = path.join(ROOT, 'data/multi30k');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-average-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const P = (f) => path.join(TMP, f);

const head = (file, n) => `${readFileSync(file, 'utf8').split('\n').slice(0, n).join('\n')}\n`;
for (const l of ['en', 'fr', 'de']) {
  writeFileSync(P(`train.${l}`), head(path.join(D, 'raw', `train.${l}`), 200));
  writeFileSync(P(`val.${l}`), head(path.join(D, 'raw', `val.${l}`), 5));
}
const trainArgs = (out, { tgt = 'fr', hidden = '16', epochs = '3', extra = [] } = {}) => ['train', '--src', P('train.en'),
  '--tgt', P(`train.${tgt}`), '--dev-src', P('val.en'), '--dev-tgt', P(`val.${tgt}`),
  '--src-spm', path.join(D, 'spm/m30k_en.model'), '--tgt-spm', path.join(D, `spm/m30k_${tgt}.model`),
  '--hidden', hidden, '--embedding', hidden, '--tie-embeddings', '--batch', '16', '--epochs', epochs, '--patience', '0',
  '--seed', '1', '--threads', '1', '--quiet', ...extra, '--out', out];

// Every F32 tensor of a checkpoint: name -> Float32Array.
function tensors(file) {
  const bytes = readFileSync(file);
  const h = headerOf(bytes);
  const n = Number(bytes.readBigUInt64LE(0));
  const r = {};
  for (const [name, t] of Object.entries(h)) {
    if (name === '__metadata__' || t.dtype !== 'F32') continue;
    const [a, b] = t.data_offsets;
    r[name] = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 8 + n + a, bytes.byteOffset + 8 + n + b));
  }
  return r;
}

test('train --keep-epochs keeps each epoch\'s weights, the same after a stop and a resume', () => {
  const out = P('run.safetensors');
  cliOk(trainArgs(out, { extra: ['--keep-epochs'] }));
  for (const e of [1, 2, 3]) {
    const f = P(`run.epoch${e}.safetensors`);
    assert.ok(existsSync(f), f);
    assert.equal(headerOf(readFileSync(f)).__metadata__.epoch, String(e));
  }
  assert.equal(existsSync(P('run.epoch4.safetensors')), false);
  // The last epoch's file holds the run's last weights; an earlier one differs.
  const last = tensors(`${out}.last`), third = tensors(P('run.epoch3.safetensors')), first = tensors(P('run.epoch1.safetensors'));
  assert.deepEqual(third, last);
  assert.notDeepEqual(first, third);
  // Stopped in its second epoch (13 steps an epoch) and resumed: the same three files, bit for bit.
  const out2 = P('again.safetensors');
  cliOk(trainArgs(out2, { extra: ['--keep-epochs', '--stop-after', '20'] }));
  assert.ok(existsSync(P('again.epoch1.safetensors')));
  assert.equal(existsSync(P('again.epoch2.safetensors')), false);
  cliOk([...trainArgs(out2, { extra: ['--keep-epochs'] }), '--resume', `${out2}.last`]);
  for (const e of [1, 2, 3]) assert.deepEqual(tensors(P(`again.epoch${e}.safetensors`)), tensors(P(`run.epoch${e}.safetensors`)), `epoch ${e}`);
  // Only epoch runs have epochs to keep.
  cliUsage(['train', '--task', 'reverse', '--keep-epochs', '--out', P('task.safetensors')], '--keep-epochs applies to training in epochs');
  // Without the flag, no epoch files.
  cliOk(trainArgs(P('plain.safetensors')));
  assert.equal(existsSync(P('plain.epoch1.safetensors')), false);
});

test('average: the mean of the checkpoints, weight by weight, with what was averaged in its metadata', () => {
  const [a, b, c] = [1, 2, 3].map((e) => P(`run.epoch${e}.safetensors`));
  if (!existsSync(c)) cliOk(trainArgs(P('run.safetensors'), { extra: ['--keep-epochs'] }));
  const out = P('mean.safetensors');
  const r = cliOk(['average', '--in', a, '--in', b, '--in', c, '--out', out]);
  assert.match(r.out, /the mean of 3 checkpoints/);
  const [ta, tb, tc, tm] = [a, b, c, out].map(tensors);
  assert.deepEqual(Object.keys(tm), Object.keys(ta));
  for (const name of Object.keys(ta)) {
    // The mean in double, stored as f32.
    const want = ta[name].map((x, i) => Math.fround((x + tb[name][i] + tc[name][i]) / 3));
    assert.deepEqual(tm[name], want, name);
  }
  const meta = headerOf(readFileSync(out)).__metadata__;
  assert.equal(meta.averaged, '3 checkpoints: run.epoch1.safetensors, run.epoch2.safetensors, run.epoch3.safetensors');
  assert.equal(meta.epoch, undefined, 'the first input\'s epoch is not the mean\'s');
  // A checkpoint averaged with itself is itself.
  cliOk(['average', '--in', c, '--in', c, '--out', P('same.safetensors')]);
  assert.deepEqual(tensors(P('same.safetensors')), tc);
  // The mean translates (it is a whole checkpoint).
  cliOk(['translate', '--model', out, 'A dog runs.']);
});

test('average: what cannot be averaged is refused, naming the file, and nothing is written', () => {
  const a = P('run.epoch1.safetensors');
  if (!existsSync(a)) cliOk(trainArgs(P('run.safetensors'), { extra: ['--keep-epochs'] }));
  const out = P('refused.safetensors');
  cliUsage(['average', '--in', a, '--out', out], 'give two or more --in checkpoints to average (got 1)');
  cliUsage(['average', '--in', a, '--in', a], '--out FILE is required');
  const wide = P('wide.safetensors');
  cliOk(trainArgs(wide, { hidden: '24', epochs: '1' }));
  cliRefused(['average', '--in', a, '--in', wide, '--out', out], `${wide} has --hidden 24, where ${a} has --hidden 16`);
  const german = P('german.safetensors');
  cliOk(trainArgs(german, { tgt: 'de', epochs: '1' }));
  cliRefused(['average', '--in', a, '--in', german, '--out', out], `${german} does not share ${a}'s vocabularies`);
  const q = P('q.safetensors');
  cliOk(['quantize', '--in', a, '--out', q]);
  cliRefused(['average', '--in', a, '--in', q, '--out', out], `${q} is int8: average the f32 (or f16) checkpoints`);
  cliRefused(['average', '--in', a, '--in', P('missing.safetensors'), '--out', out], 'missing.safetensors');
  assert.equal(existsSync(out), false);
});
