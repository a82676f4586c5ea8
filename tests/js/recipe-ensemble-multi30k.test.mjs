// The recipe that chooses what ships for a Multi30K pair among ensembles (scripts/ensemble-multi30k.sh),
// run end to end on five-line val and test files (RAW) with the shipped en-fr and two tiny members
// trained here: each candidate's penalty and val BLEU are what `attnseq eval` gives for its int8
// files, a candidate over the byte limit is left out, the best on val is chosen, the test sets are
// decoded once for it (not again on a rerun), and a choice that already ships decodes none.
// Uses the native binary (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, cliOk, requireNativeCli, trainTinyEnFr } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const D = path.join(ROOT, 'data/multi30k');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-ensemble-m30k-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const SHIPPED = path.join(ROOT, 'models/en-fr.safetensors');

const lines = (file, from, n) => readFileSync(file, 'utf8').split('\n').slice(from, from + n);
// Five lines of each set (val and the two test sets), and 200 training pairs for the tiny members.
for (const set of ['val', 'test_2016_flickr', 'test_2017_flickr']) {
  for (const l of ['en', 'fr']) writeFileSync(path.join(TMP, `${set}.${l}`), `${lines(path.join(D, 'raw', `${set}.${l}`), 0, 5).join('\n')}\n`);
}
for (const l of ['en', 'fr']) writeFileSync(path.join(TMP, `train.${l}`), `${lines(path.join(D, 'raw', `train.${l}`), 0, 200).join('\n')}\n`);

const run = (args, env = {}) => spawnSync('bash', [path.join(ROOT, 'scripts/ensemble-multi30k.sh'), ...args], {
  encoding: 'utf8', timeout: 600000, env: { ...process.env, CLI: NATIVE_CLI, RAW: TMP, THREADS: '1', ...env },
});
const tsv = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
  const [key, lp, bleu, bytes] = l.split('\t');
  return { key, lp, bleu: Number(bleu), bytes: Number(bytes) };
});
const tiny = (seed) => trainTinyEnFr({ train: path.join(TMP, 'train'), dev: path.join(TMP, 'val'), seed, epochs: 1,
  out: path.join(TMP, `tiny${seed}.safetensors`) });
const val13a = (files, lp) => JSON.parse(cliOk(['eval', ...files.flatMap((f) => ['--model', f]),
  '--src', path.join(TMP, 'val.en'), '--tgt', path.join(TMP, 'val.fr'), '--beam', '5',
  '--length-penalty', lp, '--threads', '1', '--json']).out).bleu_13a;

test('ensemble-multi30k.sh: int8 members, each candidate\'s penalty and val BLEU, the limit, the choice, the test sets once', () => {
  requireNativeCli();
  const [a, b] = [tiny(1), tiny(2)];
  const out = path.join(TMP, 'pick');
  // The shipped model with a tiny member fits 20 MB; with both (LIMIT 14 MB) only the tiny pair does.
  let r = run(['fr', out, `${a} ${b}`, `${SHIPPED}  ${a}`, a], { LIMIT: '14000000' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /over the limit of 14000000: not a candidate/);
  const int8 = (f) => path.join(out, `${path.basename(f, '.safetensors').replace(/\.int8$/, '')}.int8.safetensors`);
  assert.ok(statSync(int8(a)).size < statSync(a).size, 'an f32 member is stored as int8, smaller');
  assert.equal(statSync(int8(SHIPPED)).size, statSync(SHIPPED).size, 'an int8 member is copied');
  const rows = tsv(path.join(out, 'val.tsv'));
  assert.deepEqual(rows.map((x) => x.key), [`${a} ${b}`, a], 'one row per candidate within the limit, files joined by one space');
  for (const row of rows) {
    const files = row.key.split(' ').map(int8);
    assert.equal(row.bytes, files.reduce((s, f) => s + statSync(f).size, 0));
    assert.ok(['0.6', '0.8', '1.0', '1.2', '1.4', '1.6'].includes(row.lp), row.lp);
    assert.equal(row.bleu, val13a(files, row.lp), `${row.key}: val BLEU at penalty ${row.lp}`);
  }
  const best = rows.reduce((x, y) => (y.bleu > x.bleu || (y.bleu === x.bleu && y.bytes < x.bytes) ? y : x));
  const choice = readFileSync(path.join(out, 'choice.txt'), 'utf8').split('\n');
  assert.equal(choice[0], best.key);
  assert.equal(choice[1], `length penalty ${best.lp}`);
  // The test sets, decoded once with the choice: val, test 2016 and test 2017, each a figure.
  const testTxt = path.join(out, 'test.txt');
  const text = readFileSync(testTxt, 'utf8');
  assert.equal(text.split('\n')[0], `test sets for: ${best.key} (length penalty ${best.lp})`);
  for (const set of ['val', 'test_2016_flickr', 'test_2017_flickr']) {
    // The penalty is named once, as eval's other options are (it was "beam 5, length_penalty 1.2, length penalty 1.2").
    const n = best.key.split(' ').length;
    assert.match(text, new RegExp(`^.*${set}\\.en -> .*${set}\\.fr: 5 lines, beam 5, length_penalty ${Number(best.lp)}${n > 1 ? `, an ensemble of ${n} models` : ''}$`, 'm'));
    assert.equal(readFileSync(path.join(out, `${set}.hyp`), 'utf8').split('\n').length - 1, 5, `${set}.hyp: a line per sentence`);
  }
  const mtime = statSync(testTxt).mtimeMs;

  // A rerun scores nothing again and decodes no test set again.
  r = run(['fr', out, `${a} ${b}`, a], { LIMIT: '14000000' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /on val, beam 5/);
  assert.match(r.stderr, /already holds the test sets for this choice/);
  assert.equal(statSync(testTxt).mtimeMs, mtime);

  // With the shipped model as a candidate it wins on val; it already ships, so no test set is decoded.
  const out2 = path.join(TMP, 'shipped');
  r = run(['fr', out2, SHIPPED, a]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(path.join(out2, 'choice.txt'), 'utf8').split('\n')[0], SHIPPED);
  assert.match(r.stderr, /already shipped: its test figures are in models\/README.md/);
  assert.equal(existsSync(path.join(out2, 'test.txt')), false);
});

test('ensemble-multi30k.sh: bad arguments are refused, naming what is wrong', () => {
  requireNativeCli();
  const out = path.join(TMP, 'bad');
  let r = run(['es', out, SHIPPED]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /target language is de or fr, not 'es'/);
  r = run(['fr', out]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /usage: bash scripts\/ensemble-multi30k.sh/);
  r = run(['fr', out, path.join(TMP, 'missing.safetensors')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no such checkpoint: .*missing\.safetensors/);
  // Two members whose int8 files would share a name.
  const other = path.join(TMP, 'other');
  cliOk(['quantize', '--in', SHIPPED, '--out', path.join(TMP, 'en-fr.safetensors')]);
  r = run(['fr', other, `${SHIPPED} ${path.join(TMP, 'en-fr.safetensors')}`]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /would both be stored as .*en-fr\.int8\.safetensors: rename one/);
  // Nothing over the limit: no candidate.
  r = run(['fr', path.join(TMP, 'none'), SHIPPED], { LIMIT: '1000' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /no candidate fits the limit of 1000 bytes/);
});
