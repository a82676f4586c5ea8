// Subword regularisation in training (`train --src --tgt --sample-alpha A`): each epoch trains on
// segmentations drawn from both sides' unigram SentencePiece models. A large alpha draws the best ones,
// so the run is the plain run's bytes; a small one trains otherwise; a run stopped and resumed gives
// the uninterrupted run's bytes; the alpha is part of the run's record; what cannot sample is refused.
// Fails if the binary is missing (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const D = path.join(ROOT, 'data/multi30k');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-sample-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const P = (f) => path.join(TMP, f);

const head = (file, n) => `${readFileSync(file, 'utf8').split('\n').slice(0, n).join('\n')}\n`;
for (const l of ['en', 'fr']) {
  writeFileSync(P(`train.${l}`), head(path.join(D, 'raw', `train.${l}`), 200));
  writeFileSync(P(`val.${l}`), head(path.join(D, 'raw', `val.${l}`), 5));
}
const train = (out, extra = [], spm = { src: path.join(D, 'spm/m30k_en.model'), tgt: path.join(D, 'spm/m30k_fr.model') }) => [
  'train', '--src', P('train.en'), '--tgt', P('train.fr'), '--dev-src', P('val.en'), '--dev-tgt', P('val.fr'),
  '--src-spm', spm.src, '--tgt-spm', spm.tgt, '--hidden', '16', '--embedding', '16', '--tie-embeddings', '--batch', '16',
  '--epochs', '2', '--patience', '0', '--seed', '1', '--threads', '1', '--quiet', ...extra, '--out', out];
const bytes = (f) => readFileSync(f);

test('train --sample-alpha: a large alpha is the plain run; a small one is not; resuming is exact', () => {
  cliOk(train(P('plain.safetensors')));
  cliOk(train(P('large.safetensors'), ['--sample-alpha', '10000']));
  assert.deepEqual(bytes(P('large.safetensors.last')), bytes(P('plain.safetensors.last')), 'alpha 1e4 draws the best segmentations');
  cliOk(train(P('small.safetensors'), ['--sample-alpha', '0.1']));
  assert.notDeepEqual(bytes(P('small.safetensors.last')), bytes(P('plain.safetensors.last')), 'alpha 0.1 trains on other pieces');
  // Stopped in the second epoch (13 steps an epoch), resumed: the uninterrupted run's files.
  cliOk(train(P('again.safetensors'), ['--sample-alpha', '0.1', '--stop-after', '20']));
  cliOk([...train(P('again.safetensors'), ['--sample-alpha', '0.1']), '--resume', P('again.safetensors.last')]);
  for (const f of ['', '.last']) assert.deepEqual(bytes(P(`again.safetensors${f}`)), bytes(P(`small.safetensors${f}`)), f || 'best');
});

test('train --sample-alpha: refused where it cannot apply, and on a resume that changes it', () => {
  cliOk(train(P('stop.safetensors'), ['--sample-alpha', '0.1', '--stop-after', '5']));
  cliRefused([...train(P('stop.safetensors'), ['--sample-alpha', '0.2']), '--resume', P('stop.safetensors.last')],
    '--sample-alpha: the state was saved with 0.1, this run asks for 0.2');
  cliRefused([...train(P('stop.safetensors')), '--resume', P('stop.safetensors.last')], '--sample-alpha');
  for (const bad of ['-1', 'x', 'inf']) cliUsage(train(P('bad.safetensors'), ['--sample-alpha', bad]), '--sample-alpha');
  // A BPE model with attnseq's special ids, made by the library's trainer (scripts/setup.sh installs it).
  const made = spawnSync('spm_train', [`--input=${P('train.en')}`, `--model_prefix=${P('bpe')}`, '--model_type=bpe',
    '--vocab_size=300', '--pad_id=0', '--bos_id=1', '--eos_id=2', '--unk_id=3', '--num_threads=1'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const bpe = P('bpe.model');
  cliRefused(train(P('bpe.safetensors'), ['--sample-alpha', '0.1'], { src: bpe, tgt: bpe }),
    `--src-spm '${bpe}' is not a unigram model`);
  cliUsage(['train', '--pron', path.join(ROOT, 'data/cmudict/g014b2b.train'), '--sample-alpha', '0.1', '--out', P('p.safetensors')],
    '--sample-alpha applies to --src/--tgt');
  cliUsage(['train', '--task', 'reverse', '--sample-alpha', '0.1', '--out', P('t.safetensors')], '--sample-alpha applies to --src/--tgt');
});
