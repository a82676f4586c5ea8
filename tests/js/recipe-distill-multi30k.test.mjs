// The recipe's first two steps of sequence-level distillation for a Multi30K pair
// (scripts/distill-multi30k.sh with TARGETS_ONLY=1), run end to end on a twelve-line training set and
// a five-line val set (RAW) with two tiny teachers trained here: the teachers' penalty is the best of
// the six on val, the targets are their ensemble's translations of the training sources at that
// penalty (an empty one replaced by its reference, and counted), made in chunks that a rerun keeps,
// and a rerun with the targets there does nothing again; TEACHERS_LP gives the penalty instead, with
// no sweep. Uses the native binary (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, cliOk, requireNativeCli, trainTinyEnFr } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const D = path.join(ROOT, 'data/multi30k');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-distill-m30k-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const lines = (file, from, n) => readFileSync(file, 'utf8').split('\n').slice(from, from + n);
const RAW = path.join(TMP, 'raw');
mkdirSync(RAW);
for (const l of ['en', 'fr']) {
  writeFileSync(path.join(RAW, `val.${l}`), `${lines(path.join(D, 'raw', `val.${l}`), 0, 5).join('\n')}\n`);
  writeFileSync(path.join(RAW, `train.${l}`), `${lines(path.join(D, 'raw', `train.${l}`), 0, 12).join('\n')}\n`);
  // The tiny teachers learn from 200 other training pairs.
  writeFileSync(path.join(TMP, `teach.${l}`), `${lines(path.join(D, 'raw', `train.${l}`), 100, 200).join('\n')}\n`);
}

const run = (args, env = {}) => spawnSync('bash', [path.join(ROOT, 'scripts/distill-multi30k.sh'), ...args], {
  encoding: 'utf8', timeout: 600000, env: { ...process.env, CLI: NATIVE_CLI, RAW, THREADS: '1', TARGETS_ONLY: '1', ...env },
});
const tiny = (seed) => trainTinyEnFr({ train: path.join(TMP, 'teach'), dev: path.join(RAW, 'val'), seed, epochs: 2,
  out: path.join(TMP, `tiny${seed}.safetensors`) });
const models = (files) => files.flatMap((f) => ['--model', f]);
const val13a = (files, lp) => JSON.parse(cliOk(['eval', ...models(files), '--src', path.join(RAW, 'val.en'),
  '--tgt', path.join(RAW, 'val.fr'), '--beam', '5', '--length-penalty', lp, '--threads', '1', '--json']).out).bleu_13a;
// The ensemble's translations of the training sources, as `attnseq eval --hyp` writes them.
function translations(files, lp) {
  const hyp = path.join(TMP, `check-${lp}.hyp`);
  cliOk(['eval', ...models(files), '--src', path.join(RAW, 'train.en'), '--tgt', path.join(RAW, 'train.fr'),
    '--beam', '5', '--length-penalty', lp, '--threads', '1', '--hyp', hyp]);
  return readFileSync(hyp, 'utf8').split('\n').slice(0, -1);
}

test('distill-multi30k.sh TARGETS_ONLY=1: the teachers\' penalty on val, their translations as targets, in chunks, once', () => {
  requireNativeCli();
  const teachers = [tiny(1), tiny(2)];
  const out = path.join(TMP, 'd', 'student.safetensors');
  let r = run(['fr', out, ...teachers], { CHUNK: '5' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /TARGETS_ONLY=1: no student trained/);
  assert.equal(existsSync(out), false, 'no student');
  assert.equal(existsSync(path.join(TMP, 'd', 'student.chunks')), false, 'the chunks are removed once joined');
  // The penalty: the best 13a BLEU of the six on val, the first on a tie.
  const lp = readFileSync(`${out}.teachers.lp`, 'utf8').trim();
  const scores = ['0.6', '0.8', '1.0', '1.2', '1.4', '1.6'].map((p) => [p, val13a(teachers, p)]);
  const best = scores.reduce((x, y) => (y[1] > x[1] ? y : x));
  assert.equal(lp, best[0], JSON.stringify(scores));
  const record = readFileSync(`${out}.teachers.txt`, 'utf8');
  for (const [p, bleu] of scores) {
    assert.match(record, new RegExp(`teachers \\(2\\) on val, beam 5, length penalty ${p}: BLEU \\(13a\\) ${bleu}`));
  }
  // The targets: a line per training pair, the ensemble's translation, or the reference where it is empty.
  const targets = readFileSync(path.join(TMP, 'd', 'student.train.fr'), 'utf8').split('\n').slice(0, -1);
  const refs = readFileSync(path.join(RAW, 'train.fr'), 'utf8').split('\n').slice(0, -1);
  const hyps = translations(teachers, lp);
  assert.equal(targets.length, 12);
  const empty = hyps.filter((h) => h.trim() === '').length;
  assert.deepEqual(targets, hyps.map((h, i) => (h.trim() === '' ? refs[i] : h)));
  assert.ok(hyps.some((h) => h.trim() !== ''), 'the teachers write something');
  assert.match(record, new RegExp(`^${empty} empty translations replaced by their references$`, 'm'));
  const mtime = statSync(path.join(TMP, 'd', 'student.train.fr')).mtimeMs;

  // A rerun with the targets there neither scores nor translates again.
  r = run(['fr', out, ...teachers], { CHUNK: '5' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /on val, beam 5|teachers translate/);
  assert.equal(statSync(path.join(TMP, 'd', 'student.train.fr')).mtimeMs, mtime);

  // A killed run goes on from its chunks: a whole chunk already there is kept as it is, and one cut
  // short is made again.
  const out2 = path.join(TMP, 'e', 'student.safetensors');
  mkdirSync(path.join(TMP, 'e', 'student.safetensors.chunks'), { recursive: true });
  writeFileSync(`${out2}.teachers.lp`, `${lp}\n`);
  writeFileSync(path.join(TMP, 'e', 'student.safetensors.chunks', '000.hyp'), 'un\ndeux\ntrois\nquatre\ncinq\n');
  writeFileSync(path.join(TMP, 'e', 'student.safetensors.chunks', '001.hyp'), 'six\n');
  r = run(['fr', out2, ...teachers], { CHUNK: '5' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /on val, beam 5/, 'the penalty chosen before is kept');
  assert.doesNotMatch(r.stderr, /chunk 1 of 3/);
  assert.match(r.stderr, /chunk 2 of 3/);
  const resumed = readFileSync(path.join(TMP, 'e', 'student.train.fr'), 'utf8').split('\n').slice(0, -1);
  assert.deepEqual(resumed, ['un', 'deux', 'trois', 'quatre', 'cinq', ...targets.slice(5)]);
});

test('distill-multi30k.sh TEACHERS_LP: the targets at the penalty given, with no sweep on val', () => {
  requireNativeCli();
  const teachers = [tiny(1), tiny(2)];
  const out = path.join(TMP, 'g', 'student.safetensors');
  const r = run(['fr', out, ...teachers], { TEACHERS_LP: '1.4' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /on val, beam 5, length penalty/, 'no sweep');
  assert.equal(readFileSync(`${out}.teachers.lp`, 'utf8').trim(), '1.4');
  // The ensemble's val figures at that penalty are kept, as for a chosen one.
  assert.match(readFileSync(`${out}.teachers.txt`, 'utf8'), /beam 5, length_penalty 1.4, an ensemble of 2 models/);
  const refs = readFileSync(path.join(RAW, 'train.fr'), 'utf8').split('\n').slice(0, -1);
  const targets = readFileSync(path.join(TMP, 'g', 'student.train.fr'), 'utf8').split('\n').slice(0, -1);
  assert.deepEqual(targets, translations(teachers, '1.4').map((h, i) => (h.trim() === '' ? refs[i] : h)));

  // Going on from an earlier run's penalty with another one given is refused, naming both.
  rmSync(path.join(TMP, 'g', 'student.train.fr'));
  const again = run(['fr', out, ...teachers], { TEACHERS_LP: '0.6' });
  assert.equal(again.status, 2, again.stderr);
  assert.match(again.stderr, /TEACHERS_LP=0\.6, but .*student\.safetensors\.teachers\.lp holds 1\.4 from an earlier run/);
  assert.equal(existsSync(path.join(TMP, 'g', 'student.train.fr')), false, 'no targets written');
});

test('distill-multi30k.sh: bad arguments are refused, naming what is wrong', () => {
  requireNativeCli();
  const out = path.join(TMP, 'bad', 'student.safetensors');
  let r = run(['es', out, path.join(ROOT, 'models/en-fr.safetensors')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /target language is de or fr, not 'es'/);
  r = run(['fr', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: bash scripts\/distill-multi30k.sh/);
  // Other data is only for the targets: the student's recipe trains on data/multi30k.
  r = run(['fr', out, path.join(ROOT, 'models/en-fr.safetensors')], { TARGETS_ONLY: '0' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /RAW=.* needs TARGETS_ONLY=1/);
  for (const lp of ['x', '-1', '1.2.3']) {
    r = run(['fr', out, path.join(ROOT, 'models/en-fr.safetensors')], { TEACHERS_LP: lp });
    assert.equal(r.status, 2, lp);
    assert.match(r.stderr, new RegExp(`TEACHERS_LP is a length penalty \\(a number, 0 or more\\), not '${lp.replace(/\./g, '\\.')}'`));
  }
  assert.equal(existsSync(path.join(TMP, 'bad')), false, 'nothing written');
});
