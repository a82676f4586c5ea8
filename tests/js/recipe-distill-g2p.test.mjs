// The sequence-level distillation recipe for English pronunciation (scripts/distill-g2p.sh) run end
// to end on a small dictionary (every 100th line of CMUdict's training words) with two tiny teachers
// and a tiny student of one epoch: the student's dictionary keeps the dev split's words as they are
// and gives every other word the teachers' pronunciation (MIX=1: beside its own), the student's dev
// split is the teachers', and a rerun keeps the dictionary. Uses the native binary (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, cliOk, requireNativeCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-distill-g2p-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const DATA = path.join(TMP, 'small.dict');
const LINES = readFileSync(path.join(ROOT, 'data/cmudict/g014b2b.train'), 'utf8').split('\n').filter(Boolean)
  .filter((_, i) => i % 100 === 0);
const SPLIT = ['--dev-fraction', '0.03', '--dev-seed', '1'];
const SMALL = { HIDDEN: '16', EMBEDDING: '8', EPOCHS: '1', THREADS: '1', STOP_AFTER_TRAINING: '1' };
const run = (args, env = {}) => spawnSync('bash', [path.join(ROOT, 'scripts/distill-g2p.sh'), ...args], {
  encoding: 'utf8', timeout: 600000, env: { ...process.env, CLI: NATIVE_CLI, DATA, ...SMALL, ...env },
});
// WORD<TAB>PRONUNCIATION lines -> Map(word -> [pronunciations]) in the file's order.
function byWord(text) {
  const m = new Map();
  for (const l of text.split('\n').filter(Boolean)) {
    const [w, p] = l.split('\t');
    m.set(w, [...(m.get(w) ?? []), p]);
  }
  return m;
}

test('distill-g2p.sh: the teachers\' pronunciations for the training words, the dev split\'s own, a student on them', () => {
  requireNativeCli();
  writeFileSync(DATA, `${LINES.join('\n')}\n`);
  const teachers = [1, 2].map((seed) => {
    const t = path.join(TMP, `t${seed}.safetensors`);
    cliOk(['train', '--pron', DATA, ...SPLIT, '--hidden', '16', '--embedding', '8', '--batch', '16', '--lr', '0.01',
      '--epochs', '2', '--seed', String(seed), '--threads', '1', '--quiet', '--out', t]);
    return t;
  });
  const models = teachers.flatMap((t) => ['--model', t]);
  // What the two teachers say together (beam 5), and which words the dev split holds.
  cliOk(['eval', ...models, '--pron', DATA, '--beam', '5', '--hyp', path.join(TMP, 'all.hyp')]);
  cliOk(['eval', ...models, '--pron', DATA, ...SPLIT, '--beam', '5', '--hyp', path.join(TMP, 'dev.hyp')]);
  const said = byWord(readFileSync(path.join(TMP, 'all.hyp'), 'utf8'));
  const devWords = new Set(byWord(readFileSync(path.join(TMP, 'dev.hyp'), 'utf8')).keys());
  const own = byWord(readFileSync(DATA, 'utf8'));
  assert.equal(devWords.size, Math.round(0.03 * own.size));

  const out = path.join(TMP, 'student.safetensors');
  let r = run([out, ...teachers]);
  assert.equal(r.status, 0, r.stderr);
  const dict = path.join(TMP, 'student.train.dict');
  const got = byWord(readFileSync(dict, 'utf8'));
  assert.deepEqual([...got.keys()], [...own.keys()], 'every word, in the file\'s order');
  let taken = 0;
  for (const [w, ps] of got) {
    const t = said.get(w)[0];
    if (devWords.has(w) || t === '') assert.deepEqual(ps, own.get(w), `${w} keeps its own`);
    else {
      assert.deepEqual(ps, [t], `${w} takes the teachers'`);
      taken += !own.get(w).includes(t);
    }
  }
  assert.ok(taken > 0, 'some training word changed');
  assert.match(r.stderr, new RegExp(`${own.size} words: ${devWords.size} of the dev split keep their own pronunciations; of the rest, ${taken} take the teachers'`));
  // The teachers' dev WER is recorded; the student held out the same words and was scored on their own.
  const report = readFileSync(path.join(TMP, 'student.safetensors.teachers.txt'), 'utf8');
  assert.match(report, new RegExp(`: ${devWords.size} words of its dev split \\(--dev-fraction 0\\.03, --dev-seed 1\\)`));
  assert.match(r.stderr, new RegExp(`training pairs \\(${own.size - devWords.size} words\\), ${devWords.size} dev words \\(--dev-fraction 0\\.03, --dev-seed 1\\)`));
  assert.ok(existsSync(out));
  const info = cliOk(['info', '--model', out]).out;
  assert.match(info, /^data: student\.train\.dict$/m);

  // A rerun keeps the dictionary and finds the student's run over.
  const before = statSync(dict).mtimeMs;
  r = run([out, ...teachers]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(statSync(dict).mtimeMs, before);
  assert.doesNotMatch(r.stderr, /teachers decode every word/);
  assert.match(r.stderr, /the training run in .* is over/);

  // MIX=1: the teachers' pronunciation first, the word's own beside it when they differ.
  const mixOut = path.join(TMP, 'mix.safetensors');
  r = run([mixOut, ...teachers], { MIX: '1', EPOCHS: '1' });
  assert.equal(r.status, 0, r.stderr);
  const mixed = byWord(readFileSync(path.join(TMP, 'mix.train.dict'), 'utf8'));
  for (const [w, ps] of mixed) {
    const t = said.get(w)[0];
    if (devWords.has(w) || t === '') assert.deepEqual(ps, own.get(w), w);
    else assert.deepEqual(ps, [t, ...own.get(w).filter((p) => p !== t)], w);
  }

  // Refused: no teacher, a MIX that is not 0 or 1 (nothing written).
  r = run([path.join(TMP, 'x.safetensors')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: bash scripts\/distill-g2p\.sh OUT\.safetensors TEACHER\.safetensors/);
  r = run([path.join(TMP, 'x.safetensors'), ...teachers], { MIX: 'yes' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /MIX is 0 or 1, not 'yes'/);
  assert.ok(!existsSync(path.join(TMP, 'x.train.dict')));
});
