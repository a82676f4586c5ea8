// Token-level distillation in the native CLI's epoch runs (`train --teacher FILE [--teacher FILE]
// --distill-weight X`): a student learns from its teachers' mean distribution mixed with the reference;
// stopped and resumed it ends with the uninterrupted run's bytes; its record holds the teachers, so
// another teacher or weight is another run; teachers that cannot teach (int8, other vocabularies, not
// a checkpoint) and misplaced flags are refused by name. The loss's gradient is held to central
// differences in tests/cpp/test_backprop.cpp. Also fine-tuning (`train --init FILE`), with which a
// student can start from a teacher's weights: training starts from FILE's weights, FILE is part of
// the run, and a model that cannot be the start (another architecture, int8) is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-distill-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const same = (a, b) => readFileSync(a).equals(readFileSync(b));

// Every 300th line of CMUdict's training split, as tests/js/native-cli-pron.test.mjs uses.
const LINES = readFileSync(path.join(ROOT, 'data/cmudict/g014b2b.train'), 'utf8').split('\n').filter((l) => l).filter((_, i) => i % 300 === 0);
const DICT = path.join(TMP, 'small.dict');
writeFileSync(DICT, LINES.join('\n') + '\n');
const BASE = ['train', '--pron', DICT, '--dev-fraction', '0.1', '--embedding', '8', '--batch', '16', '--lr', '0.01',
  '--warmup', '10', '--threads', '2', '--quiet'];
// Two teachers of other sizes and seeds (a teacher may be any architecture with the same vocabularies).
const T1 = path.join(TMP, 't1.safetensors'), T2 = path.join(TMP, 't2.safetensors');
cliOk([...BASE, '--hidden', '24', '--seed', '1', '--epochs', '3', '--out', T1]);
cliOk([...BASE, '--hidden', '16', '--cell', 'lstm', '--seed', '2', '--epochs', '3', '--out', T2]);
const STUDENT = [...BASE, '--hidden', '16', '--seed', '4', '--epochs', '2'];

test('train --teacher: the teachers change what the student learns, and the weight matters', () => {
  const plain = path.join(TMP, 's-plain.safetensors'), one = path.join(TMP, 's-one.safetensors');
  const two = path.join(TMP, 's-two.safetensors'), heavy = path.join(TMP, 's-heavy.safetensors');
  cliOk([...STUDENT, '--out', plain]);
  const r = cliOk([...STUDENT, '--teacher', T1, '--out', one]);
  assert.match(r.out, /trained \d+ steps in .*best dev WER/);
  cliOk([...STUDENT, '--teacher', T1, '--teacher', T2, '--out', two]);
  cliOk([...STUDENT, '--teacher', T1, '--distill-weight', '1', '--out', heavy]);
  for (const [a, b] of [[plain, one], [one, two], [one, heavy]]) assert.ok(!same(a, b), `${path.basename(a)} and ${path.basename(b)} are the same bytes`);
  // The run repeats: the same teachers and seed give the same bytes.
  const again = path.join(TMP, 's-two-again.safetensors');
  cliOk([...STUDENT, '--teacher', T1, '--teacher', T2, '--out', again]);
  assert.ok(same(two, again));
});

test('train --teacher: stopped and resumed, the run ends with the uninterrupted one\'s bytes; its teachers are part of the run', () => {
  const args = [...STUDENT, '--teacher', T1, '--teacher', T2, '--distill-weight', '0.7', '--dropout', '0.1'];
  const a = path.join(TMP, 'r-a.safetensors'), b = path.join(TMP, 'r-b.safetensors');
  cliOk([...args, '--out', a]);
  cliOk([...args, '--stop-after', '11', '--out', b]);
  cliOk([...args, '--resume', `${b}.last`, '--out', b]);
  for (const s of ['', '.last', '.last.trainer']) assert.ok(same(a + s, b + s), `${b}${s} equals the uninterrupted run's`);
  const c = path.join(TMP, 'r-c.safetensors'), e = path.join(TMP, 'r-e.safetensors');
  cliOk([...args, '--stop-after', '11', '--out', c]);
  // Another weight, other teachers, or none, is another run.
  const w = args.indexOf('0.7');
  cliRefused([...args.slice(0, w), '0.5', ...args.slice(w + 1), '--resume', `${c}.last`, '--out', e], '--distill-weight: the state was saved with 0.7, this run asks for 0.5');
  cliRefused([...STUDENT, '--teacher', T2, '--teacher', T1, '--distill-weight', '0.7', '--dropout', '0.1', '--resume', `${c}.last`, '--out', e], '--teacher: the state was saved with fnv1a:');
  cliRefused([...STUDENT, '--dropout', '0.1', '--resume', `${c}.last`, '--out', e], '--teacher');
});

test('train --teacher: teachers that cannot teach and misplaced flags are refused by name', () => {
  const out = path.join(TMP, 'bad.safetensors');
  // int8 weights: training's forward reads f32.
  const q = path.join(TMP, 't1.int8.safetensors');
  cliOk(['quantize', '--in', T1, '--out', q]);
  cliRefused([...STUDENT, '--teacher', q, '--out', out], `--teacher '${q}' holds int8 weights`);
  // Other vocabularies: a model of IPA phones.
  const ipa = path.join(TMP, 'ipa.tsv');
  writeFileSync(ipa, 'ab\ta b\nba\tb a\nabba\ta b b a\nbab\tb a b\n');
  const other = path.join(TMP, 'ipa.safetensors');
  cliOk(['train', '--pron', ipa, '--pron-dev', ipa, '--phones', 'ipa', '--hidden', '8', '--epochs', '1', '--threads', '1', '--quiet', '--out', other]);
  cliRefused([...STUDENT, '--teacher', other, '--out', out], `--teacher '${other}'`, 'vocabulary');
  // Not a checkpoint, or no file.
  cliRefused([...STUDENT, '--teacher', DICT, '--out', out], `--teacher '${DICT}'`);
  cliRefused([...STUDENT, '--teacher', path.join(TMP, 'none.safetensors'), '--out', out], 'none.safetensors');
  // The weight: in (0, 1], and only with teachers; teachers only in epoch runs.
  cliUsage([...STUDENT, '--teacher', T1, '--distill-weight', '0', '--out', out], '--distill-weight expects a number in (0, 1]');
  cliUsage([...STUDENT, '--teacher', T1, '--distill-weight', '1.5', '--out', out], '--distill-weight expects a number in (0, 1]');
  cliUsage([...STUDENT, '--distill-weight', '0.5', '--out', out], '--distill-weight applies to distillation only');
  cliUsage(['train', '--task', 'reverse', '--steps', '2', '--teacher', T1, '--out', out], '--teacher applies to training in epochs');
});

test('train --init: the run starts from the given weights, which are part of the run', () => {
  const s0 = path.join(TMP, 'i-start.safetensors');
  cliOk([...STUDENT, '--out', s0]);
  // At a rate too small to move a weight, the fine-tuned model answers as its start does.
  const still = path.join(TMP, 'i-still.safetensors'), fresh = path.join(TMP, 'i-fresh.safetensors');
  const TINY = [...STUDENT.slice(0, STUDENT.indexOf('--lr')), '--lr', '1e-12', ...STUDENT.slice(STUDENT.indexOf('--lr') + 2)];
  cliOk([...TINY, '--init', s0, '--out', still]);
  cliOk([...TINY, '--out', fresh]);
  const evalOf = (m) => cliOk(['eval', '--model', m, '--pron', DICT, '--dev-fraction', '0.1', '--threads', '1']).out;
  assert.equal(evalOf(still), evalOf(s0));
  assert.notEqual(evalOf(fresh), evalOf(s0));
  // At the run's rate it learns on from there: other bytes than a run from random weights.
  const tuned = path.join(TMP, 'i-tuned.safetensors'), plain = path.join(TMP, 'i-plain.safetensors');
  cliOk([...STUDENT, '--init', s0, '--out', tuned]);
  cliOk([...STUDENT, '--out', plain]);
  assert.ok(!same(tuned, plain));
  // With teachers too (a student from a teacher's start), and stopped and resumed to the same bytes.
  const args = [...STUDENT, '--init', s0, '--teacher', T1, '--dropout', '0.1'];
  const a = path.join(TMP, 'i-a.safetensors'), b = path.join(TMP, 'i-b.safetensors');
  cliOk([...args, '--out', a]);
  cliOk([...args, '--stop-after', '11', '--out', b]);
  cliOk([...args, '--resume', `${b}.last`, '--out', b]);
  for (const x of ['', '.last', '.last.trainer']) assert.ok(same(a + x, b + x), `${b}${x} equals the uninterrupted run's`);
  // The start is part of the run: another one, or none, does not resume it.
  const c = path.join(TMP, 'i-c.safetensors');
  cliOk([...args, '--stop-after', '11', '--out', c]);
  cliRefused([...STUDENT, '--teacher', T1, '--dropout', '0.1', '--resume', `${c}.last`, '--out', c], '--init');
  cliRefused([...STUDENT, '--init', tuned, '--teacher', T1, '--dropout', '0.1', '--resume', `${c}.last`, '--out', c],
    '--init: the state was saved with fnv1a:');
});

test('train --init: a model that cannot be the start is refused by name', () => {
  const out = path.join(TMP, 'i-bad.safetensors');
  // Another architecture: T1 is 24 wide, the student 16; T2 is an LSTM.
  cliRefused([...STUDENT, '--init', T1, '--out', out], `--init '${T1}' has --hidden 24; this run's is 16`);
  cliRefused([...STUDENT, '--init', T2, '--out', out], `--init '${T2}' has --cell lstm; this run's is gru`);
  // int8 weights, not a checkpoint, no file; and only in epoch runs.
  const q = path.join(TMP, 't1.init.int8.safetensors');
  cliOk(['quantize', '--in', T1, '--out', q]);
  cliRefused([...BASE, '--hidden', '24', '--epochs', '1', '--init', q, '--out', out], `--init '${q}' holds int8 weights`);
  cliRefused([...STUDENT, '--init', DICT, '--out', out], `--init '${DICT}'`);
  cliRefused([...STUDENT, '--init', path.join(TMP, 'none.safetensors'), '--out', out], 'none.safetensors');
  cliUsage(['train', '--task', 'reverse', '--steps', '2', '--init', T1, '--out', out], '--init applies to training in epochs');
});
