// The SIGMORPHON recipe (scripts/train-sigmorphon.sh) run end to end on a small language of its own
// layout (60 training words of Adyghe, 12 dev, 12 test) with 2 epochs a run: it trains the low
// subtask's three candidates, chooses one by dev WER, trains more seeds of it, picks the ensemble size
// on dev within the size limit, and decodes the test words once: a second run trains nothing and
// leaves the test figures as they were, unless step 3 chose other files than they were decoded with.
// Uses the native binary (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, statSync, existsSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-sigmorphon-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const lines = (f) => readFileSync(path.join(ROOT, 'data/sigmorphon2021-g2p/low', f), 'utf8').split('\n').filter(Boolean);
const run = (env = {}) => spawnSync('bash', [path.join(ROOT, 'scripts/train-sigmorphon.sh'), 'ady', path.join(TMP, 'out')], {
  encoding: 'utf8', timeout: 600000, env: { ...process.env, CLI: NATIVE_CLI, DATA: path.join(TMP, 'data'), EPOCHS: '2', ...env },
});

test('train-sigmorphon.sh: candidates (one alone with ONLY), seeds, an ensemble chosen on dev, the test words decoded once', () => {
  requireNativeCli();
  mkdirSync(path.join(TMP, 'data/low'), { recursive: true });
  const write = (name, ls) => writeFileSync(path.join(TMP, 'data/low', name), `${ls.join('\n')}\n`);
  write('ady_train.tsv', lines('ady_train.tsv').slice(0, 60));
  write('ady_dev.tsv', lines('ady_dev.tsv').slice(0, 12));
  write('ady_test.tsv', lines('ady_test.tsv').slice(0, 12));
  const out = path.join(TMP, 'out');
  // ONLY=NAME trains that one candidate and stops; a name the subtask does not have is refused.
  let r = run({ ONLY: 'h256' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no candidate 'h256' for the low subtask/);
  r = run({ ONLY: 'h128d5' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(path.join(out, 'ady/h128d5.safetensors.done')));
  assert.ok(!existsSync(path.join(out, 'ady/h128.safetensors')) && !existsSync(path.join(out, 'ady.dev.txt')));
  // ONLY=NAME-sK: that candidate with seed K, as step 2 names it.
  r = run({ ONLY: 'h128d5-s2' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /\[sigmorphon\] ady \(low\) h128d5-s2, seed 2: --hidden 128 --dropout 0.5/);
  assert.ok(existsSync(path.join(out, 'ady/h128d5-s2.safetensors.done')));
  // The whole recipe then finds that candidate done.
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\[sigmorphon\] ady \(low\) h128d5, seed 1/);
  assert.match(r.stderr, /\[sigmorphon\] ady \(low\) h128, seed 1/);
  const dev = readFileSync(path.join(out, 'ady.dev.txt'), 'utf8');
  for (const c of ['h128', 'h128d5', 'h192d4']) assert.match(dev, new RegExp(`ady ${c} \\(seed 1\\): dev WER [0-9.]+ at beam 5`));
  const chosen = dev.match(/chosen configuration: (\S+)/)[1];
  for (const s of [2, 3, 4, 5]) assert.match(dev, new RegExp(`ady ${chosen} \\(seed ${s}\\): dev WER`));
  assert.match(dev, /int8: seed 1's dev WER/);
  const k = Number(dev.match(/chosen: (\d) model\(s\), dev WER ([0-9.]+)/)[1]);
  // The chosen size has the lowest dev WER of those tried (the smallest on a tie).
  const tried = [...dev.matchAll(/ensemble of (\d): dev WER ([0-9.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.ok(tried.length >= 1);
  const best = Math.min(...tried.map(([, w]) => w));
  assert.equal(k, tried.find(([, w]) => w === best)[0]);
  const ship = readFileSync(path.join(out, 'ady.ship'), 'utf8').trim().split('\n');
  assert.equal(ship.length, k);
  assert.ok(ship.reduce((n, f) => n + statSync(f).size, 0) <= 1310720, 'within the low subtask\'s limit');
  const figures = JSON.parse(readFileSync(path.join(out, 'ady.test.json'), 'utf8'));
  assert.equal(figures.words, 12);
  assert.equal(figures.beam, 5);
  assert.match(readFileSync(path.join(out, 'ady.test.txt'), 'utf8'), /^ady test: WER [0-9.]+, PER [0-9.]+ \(12 words, beam 5\)/);
  assert.match(readFileSync(path.join(out, 'ady.time'), 'utf8'), /machine: \d+ cores/);

  // Again: nothing is trained and the test words are not decoded again.
  const before = statSync(path.join(out, 'ady.test.json')).mtimeMs;
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\[sigmorphon\] ady \(low\) \S+, seed/);
  assert.equal(statSync(path.join(out, 'ady.test.json')).mtimeMs, before);
  assert.ok(existsSync(path.join(out, 'ady.safetensors')) === false, 'no stray copy of a member');
  assert.equal(readFileSync(path.join(out, 'ady.test.ship'), 'utf8'), readFileSync(path.join(out, 'ady.ship'), 'utf8'));

  // Test figures of other files than step 3 chose (as after a change of limit) are decoded again, once.
  writeFileSync(path.join(out, 'ady.test.ship'), 'another.safetensors\n');
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.notEqual(statSync(path.join(out, 'ady.test.json')).mtimeMs, before);
  assert.equal(readFileSync(path.join(out, 'ady.test.ship'), 'utf8'), readFileSync(path.join(out, 'ady.ship'), 'utf8'));
  const again = statSync(path.join(out, 'ady.test.json')).mtimeMs;
  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.equal(statSync(path.join(out, 'ady.test.json')).mtimeMs, again);
});

test('train-sigmorphon.sh: a language the task does not have is refused, naming the ones it has', () => {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/train-sigmorphon.sh'), 'xyz', path.join(TMP, 'none')], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no language 'xyz' in data\/sigmorphon2021-g2p \(one of: kor ady .* eng_us\)/);
});

test('ship_sigmorphon.mjs refuses members that would take the 21 languages over 30 MB, and copies nothing', () => {
  const out = path.join(TMP, 'ship-over');
  mkdirSync(out, { recursive: true });
  const big = path.join(out, 'big.safetensors');
  writeFileSync(big, '');
  truncateSync(big, 29e6);  // with the other 20 languages' files (several MB), over 30 MB
  writeFileSync(path.join(out, 'kor.ship'), `${big}\n`);
  const before = readFileSync(path.join(ROOT, 'models/index.json'), 'utf8');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'tools/ship_sigmorphon.mjs'), out, 'kor'], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /the 21 languages would take \d+\.\d\d MB, over the 30 MB they may: nothing shipped/);
  assert.equal(readFileSync(path.join(ROOT, 'models/index.json'), 'utf8'), before);
  assert.ok(!readFileSync(path.join(ROOT, 'models/index.json'), 'utf8').includes('big.safetensors'));
  assert.ok(statSync(path.join(ROOT, 'models/g2p/ko-1.safetensors')).size < 2e6, 'the shipped Korean files are as they were');
});
