// Ensembles on the native command line (`--model` given more than once: src/cli/models.hpp): the
// members decode together (the mean of their log-probabilities at each step), `--json` gives their
// mean attention and each member's own; an ensemble of a model with itself translates as the model;
// members without the same vocabularies are refused, naming the one that differs. Fails if the binary
// is missing (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-ensemble-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const json = (args) => JSON.parse(cliOk([...args, '--json']).out);
const sentence = 'jane went to the store';

test('translate: a model ensembled with itself gives the model\'s translation, attention and hypotheses', () => {
  for (const beam of ['1', '4']) {
    const one = json(['translate', '--model', MODEL('en-ko'), '--beam', beam, sentence]);
    const two = json(['translate', '--model', MODEL('en-ko'), '--model', MODEL('en-ko'), '--beam', beam, sentence]);
    assert.equal(two.text, one.text);
    assert.deepEqual(two.tokens, one.tokens);
    assert.deepEqual(two.attention, one.attention); // (w + w) / 2 = w
    assert.deepEqual(two.hypotheses.map((h) => h.text), one.hypotheses.map((h) => h.text));
    assert.equal(one.memberAttention, undefined);
    assert.equal(two.memberAttention.length, 2);
    for (const m of two.memberAttention) assert.deepEqual(m, one.attention);
  }
});

test('translate: different members, their mean attention and each one\'s own', () => {
  const models = ['en-ko', 'en-ko-general', 'en-ko-bahdanau'];
  const r = json(['translate', ...models.flatMap((m) => ['--model', MODEL(m)]), '--beam', '3', sentence]);
  assert.equal(r.memberAttention.length, 3);
  assert.equal(r.attention.length, r.tokens.length);
  r.attention.forEach((row, k) => {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, `row ${k} sums to 1`);
    row.forEach((w, t) => {
      const mean = r.memberAttention.reduce((a, m) => a + m[k][t], 0) / 3;
      assert.ok(Math.abs(w - mean) < 1e-6, `row ${k}, column ${t}: ${w} is the members' mean ${mean}`);
    });
  });
  // The members do not attend alike (else the test would show nothing).
  assert.notDeepEqual(r.memberAttention[0], r.memberAttention[2]);
  // The text form prints the translation and the mean alignment.
  const text = cliOk(['translate', ...models.flatMap((m) => ['--model', MODEL(m)]), '--beam', '3', sentence]).out;
  assert.ok(text.startsWith(`[1] ${r.text}\n`), text); // beam 3: the hypotheses numbered, best first
  assert.match(text, /alignment/);
  // --batch-file gives each line what it gets alone.
  const file = path.join(TMP, 'lines.txt');
  writeFileSync(file, `${sentence}\nthe cat saw a dog\n`);
  const batch = cliOk(['translate', ...models.flatMap((m) => ['--model', MODEL(m)]), '--beam', '3', '--json', '--batch-file', file]).out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(batch.length, 2);
  assert.deepEqual(batch[0].tokens, r.tokens);
  assert.deepEqual(batch[0].memberAttention, r.memberAttention);
  const alone = json(['translate', ...models.flatMap((m) => ['--model', MODEL(m)]), '--beam', '3', 'the cat saw a dog']);
  assert.deepEqual(batch[1].tokens, alone.tokens);
});

test('eval --src/--tgt: an ensemble scores its own translations; a model with itself scores as the model', () => {
  const val = (lang) => readFileSync(path.join(ROOT, `data/multi30k/raw/val.${lang}`), 'utf8').split('\n').slice(0, 12).join('\n') + '\n';
  const src = path.join(TMP, 'v.en'), tgt = path.join(TMP, 'v.de');
  writeFileSync(src, val('en'));
  writeFileSync(tgt, val('de'));
  const one = json(['eval', '--model', MODEL('en-de'), '--src', src, '--tgt', tgt, '--beam', '2', '--threads', '2']);
  const two = json(['eval', '--model', MODEL('en-de'), '--model', MODEL('en-de'), '--src', src, '--tgt', tgt, '--beam', '2', '--threads', '2']);
  assert.equal(one.models, 1);
  assert.equal(two.models, 2);
  assert.equal(two.bleu, one.bleu);
  assert.equal(two.chrf, one.chrf);
  assert.match(cliOk(['eval', '--model', MODEL('en-de'), '--model', MODEL('en-de'), '--src', src, '--tgt', tgt, '--beam', '1']).out, /an ensemble of 2 models/);
});

test('members that do not share vocabularies are refused, named; an ensemble where one model is meant is a usage error', () => {
  cliRefused(['translate', '--model', MODEL('en-ko'), '--model', MODEL('dates'), sentence],
    `ensemble: ${MODEL('dates')} does not share ${MODEL('en-ko')}'s vocabularies: its source vocabulary has`);
  cliRefused(['translate', '--model', MODEL('en-ko'), '--model', path.join(TMP, 'missing.safetensors'), sentence], 'missing.safetensors');
  cliUsage(['eval', '--model', MODEL('en-ko'), '--model', MODEL('en-ko-general'), '--task', 'en-ko'],
    'an ensemble (--model given 2 times) is scored with --src/--tgt or --pron');
  cliUsage(['info', '--model', MODEL('en-ko'), '--model', MODEL('en-ko')], '--model is given twice');
});

test('npx attnseq takes the same ensembles and prints the same JSON (keys in order, weights within 1e-5)', () => {
  const models = ['en-ko', 'en-ko-general', 'en-ko-bahdanau'];
  const args = ['translate', ...models.flatMap((m) => ['--model', MODEL(m)]), '--beam', '3', '--json', sentence];
  const native = JSON.parse(cliOk(args).out);
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/attnseq.js'), ...args], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const js = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(js), Object.keys(native));
  assert.deepEqual(js.tokens, native.tokens);
  assert.deepEqual(js.hypotheses.map((h) => h.tokens), native.hypotheses.map((h) => h.tokens));
  const close = (a, b, what) => a.forEach((row, k) => row.forEach((w, t) => assert.ok(Math.abs(w - b[k][t]) < 1e-5, `${what} [${k}][${t}]`)));
  close(js.attention, native.attention, 'attention');
  js.memberAttention.forEach((m, i) => close(m, native.memberAttention[i], `member ${i}`));
  // And refuses what the native one refuses.
  const bad = spawnSync(process.execPath, [path.join(ROOT, 'bin/attnseq.js'), 'translate', '--model', MODEL('en-ko'), '--model', MODEL('dates'), sentence], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /models\[1\] does not share models\[0\]'s vocabularies: its source vocabulary has 63 tokens, not 68/);
});

test('npx attnseq: an ensemble\'s batch file runs on this thread; --threads above 1 is refused, --threads 1 is not', () => {
  const file = path.join(TMP, 'lines.txt');
  writeFileSync(file, `${sentence}\njohn ate an apple\n`);
  const npx = (...extra) => spawnSync(process.execPath, [path.join(ROOT, 'bin/attnseq.js'), 'translate', '--model', MODEL('en-ko'),
    '--model', MODEL('en-ko-general'), '--batch-file', file, '--quiet', ...extra], { encoding: 'utf8', timeout: 60000 });
  const plain = npx();
  assert.equal(plain.status, 0, plain.stderr);
  const lines = plain.stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  const one = json(['translate', '--model', MODEL('en-ko'), '--model', MODEL('en-ko-general'), sentence]);
  assert.equal(lines[0], one.text);
  const t1 = npx('--threads', '1');
  assert.equal(t1.status, 0, t1.stderr);
  assert.equal(t1.stdout, plain.stdout);
  const t2 = npx('--threads', '2');
  assert.equal(t2.status, 2);
  assert.match(t2.stderr, /--threads with an ensemble: a pool of Workers holds one model; an ensemble runs on this thread/);
});

test('README: the shipped en-fr ensemble\'s command prints what its comment says, with both members\' attention', () => {
  const md = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = md.match(/build\/native\/attnseq translate (--model models\/en-fr\.safetensors --model models\/en-fr-2\.safetensors) \\\n\s+--beam 5 --length-penalty 1\.2 "([^"]+)"\s+# (.+)\n/);
  assert.ok(m, 'README.md shows the en-fr ensemble\'s command');
  const args = ['translate', '--model', MODEL('en-fr'), '--model', MODEL('en-fr-2'), '--beam', '5', '--length-penalty', '1.2', m[2]];
  const out = json(args);
  assert.equal(out.text, m[3]);
  assert.equal(out.memberAttention.length, 2);
});
