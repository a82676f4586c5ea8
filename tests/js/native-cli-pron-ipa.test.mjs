// The native CLI on an IPA dictionary (data/sigmorphon2021-g2p: a few hundred Korean words, tiny
// models): `train --pron FILE --pron-dev FILE --phones ipa` uses the given dev file as it is (no split
// of its own), reads its vocabularies from the training file (the words' characters, the phones), and
// records the format in the checkpoint, which `eval --pron` then reads; a phone the training file
// lacks makes its word wrong instead of refusing the file; bad flags and the wrong format are refused
// by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage } from './native.mjs';
import { loadModel } from '../../wasm/attnseq.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-ipa-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const KOR = (split) => readFileSync(path.join(ROOT, `data/sigmorphon2021-g2p/medium/kor_${split}.tsv`), 'utf8').split('\n').filter(Boolean);
const TRAIN_LINES = KOR('train').slice(0, 400), DEV_LINES = KOR('dev').slice(0, 40);
const TRAIN_FILE = path.join(TMP, 'kor_train.tsv'), DEV_FILE = path.join(TMP, 'kor_dev.tsv');
writeFileSync(TRAIN_FILE, TRAIN_LINES.join('\n') + '\n');
writeFileSync(DEV_FILE, DEV_LINES.join('\n') + '\n');
const TRAIN = ['train', '--pron', TRAIN_FILE, '--pron-dev', DEV_FILE, '--phones', 'ipa', '--hidden', '16', '--embedding', '8',
  '--batch', '16', '--seed', '2', '--threads', '1'];

test('train --pron --pron-dev --phones ipa: the dev file as given, vocabularies from the training file, the format kept', () => {
  const out = path.join(TMP, 'kor.safetensors');
  const r = cliOk([...TRAIN, '--epochs', '2', '--out', out]);
  assert.match(r.err, new RegExp(`^400 training pairs \\(400 words\\), 40 dev words \\(${DEV_FILE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\);`, 'm'));
  const text = cliOk(['info', '--model', out]).out;
  assert.match(text, /^phones: ipa$/m);
  assert.match(text, /^dev: kor_dev\.tsv$/m);
  assert.doesNotMatch(text, /dev_fraction/);
  // The vocabularies: every character of the training words, every phone of their pronunciations.
  const chars = new Set(TRAIN_LINES.flatMap((l) => [...l.split('\t')[0]]));
  const phones = new Set(TRAIN_LINES.flatMap((l) => l.split('\t')[1].split(' ')));
  const vocab = /vocab (\d+) -> (\d+)/.exec(text);
  assert.equal(Number(vocab[1]), chars.size + 4, 'source: the characters and the four special tokens');
  assert.equal(Number(vocab[2]), phones.size + 4, 'target: the phones and the four special tokens');
  // eval reads the file as IPA because the model says so.
  const e = JSON.parse(cliOk(['eval', '--model', out, '--pron', DEV_FILE, '--json']).out);
  assert.equal(e.words, 40);
  assert.ok(e.wer >= 0 && e.wer <= 1);
  // A Korean word through translate: its phones, one token each.
  const t = JSON.parse(cliOk(['translate', '--model', out, '--json', DEV_LINES[0].split('\t')[0]]).out);
  assert.equal(t.srcTokens.join(''), DEV_LINES[0].split('\t')[0]);
  for (const p of t.tgtTokens) assert.ok(phones.has(p) || p === '</s>', `${p} is a training phone`);
});

test('a phone the training file lacks makes its word wrong, not the file unreadable', () => {
  const out = path.join(TMP, 'kor2.safetensors');
  cliOk([...TRAIN, '--epochs', '1', '--out', out]);
  const odd = path.join(TMP, 'odd.tsv');
  writeFileSync(odd, `${DEV_LINES[0].split('\t')[0]}\tq͡ʘ a\n${DEV_LINES[1]}\n`);
  const e = JSON.parse(cliOk(['eval', '--model', out, '--pron', odd, '--json']).out);
  assert.equal(e.words, 2);
  assert.ok(e.word_errors >= 1, 'the word with the unseen phone is wrong');
});

test('--hangul jamo: the model reads each syllable as its jamo, natively and in the npm package, and says so', async () => {
  const out = path.join(TMP, 'jamo.safetensors');
  cliOk([...TRAIN, '--hangul', 'jamo', '--epochs', '1', '--out', out]);
  const text = cliOk(['info', '--model', out]).out;
  assert.match(text, /Hangul read as jamo/);
  // Its source vocabulary: the jamo of the training words (and any other character they hold).
  const jamo = new Set(TRAIN_LINES.flatMap((l) => [...l.split('\t')[0].normalize('NFD')]));
  assert.equal(Number(/vocab (\d+) ->/.exec(text)[1]), jamo.size + 4);
  const t = JSON.parse(cliOk(['translate', '--model', out, '--json', '국물']).out);
  assert.deepEqual(t.srcTokens, [...'국물'.normalize('NFD')], 'ᄀ ᅮ ᆨ ᄆ ᅮ ᆯ');
  // eval --hyp names each word as the file spells it (syllables, not the jamo the model read).
  const hyp = path.join(TMP, 'jamo.hyp');
  cliOk(['eval', '--model', out, '--pron', DEV_FILE, '--hyp', hyp]);
  const lines = readFileSync(hyp, 'utf8').split('\n').filter(Boolean);
  assert.deepEqual(lines.map((l) => l.split('\t')[0]), DEV_LINES.map((l) => l.split('\t')[0]));
  const first = JSON.parse(cliOk(['translate', '--model', out, '--json', DEV_LINES[0].split('\t')[0]]).out);
  assert.equal(lines[0].split('\t')[1], first.text);
  const m = await loadModel(out);
  try {
    assert.equal(m.config.srcHangul, 'jamo');
    assert.deepEqual(m.tokenize('국물').tokens, t.srcTokens);
    assert.deepEqual(m.translate('국물').tokens, t.tokens);
  } finally {
    m.dispose();
  }
  cliUsage(['train', '--pron', TRAIN_FILE, '--hangul', 'jamo', '--out', out], '--hangul jamo goes with --phones ipa');
  cliUsage([...TRAIN, '--hangul', 'nfd', '--out', out], "--hangul is syllables or jamo, not 'nfd'");
});

test('bad flags and the wrong format are refused, named', () => {
  const out = path.join(TMP, 'x.safetensors');
  cliUsage([...TRAIN, '--dev-fraction', '0.1', '--out', out], '--pron-dev FILE gives the development words');
  cliRefused(['train', '--pron', TRAIN_FILE, '--phones', 'xsampa', '--out', out], "--phones is arpabet or ipa, not 'xsampa'");
  cliRefused(['train', '--pron', TRAIN_FILE, '--out', out], `${TRAIN_FILE}:1:`, '(an IPA dictionary: --phones ipa)');
  cliUsage(['train', '--task', 'dates', '--phones', 'ipa', '--out', out], '--phones', 'applies to training in epochs');
  const bad = path.join(TMP, 'bad.tsv');
  writeFileSync(bad, `${TRAIN_LINES[0]}\nab\xC3\tq\n`.replace('\xC3', '\u0001'));
  cliRefused(['train', '--pron', bad, '--pron-dev', DEV_FILE, '--phones', 'ipa', '--out', out],
    `${bad}:2: the word has a control character (character 3)`);
});
