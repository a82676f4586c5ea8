// The native CLI on a pronunciation dictionary (a few hundred words of data/cmudict/g014b2b.train, tiny
// models): `train --pron` epochs with a dev split, progress, best and latest checkpoints; stopped and
// resumed runs ending with an uninterrupted run's bytes; a failed save leaving the previous files; early
// stopping; `eval --pron` WER/PER by word length against references built from the model's own outputs;
// bad dictionaries, words and flags refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage, runCli } from './native.mjs';
import { withF32, withHeader, withMetadata } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-pron-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const run = runCli;
const ok = cliOk;
const refused = cliRefused;
const lastLine = (s) => s.trimEnd().split('\n').at(-1);
// args with `flag` set to `value` (replaced where present: a flag given twice is refused).
function withFlag(args, flag, value) {
  const i = args.indexOf(flag);
  return i < 0 ? [...args, flag, value] : [...args.slice(0, i + 1), value, ...args.slice(i + 2)];
}
const same = (a, b) => readFileSync(a).equals(readFileSync(b));

// Every 300th line of the training split: a few hundred words, some with two pronunciations.
const ALL = readFileSync(path.join(ROOT, 'data/cmudict/g014b2b.train'), 'utf8').split('\n').filter((l) => l);
const LINES = ALL.filter((_, i) => i % 300 === 0);
const DICT = path.join(TMP, 'small.dict');
writeFileSync(DICT, LINES.join('\n') + '\n');
const WORDS = new Set(LINES.map((l) => l.split('\t')[0]));
const FRACTION = '0.1';
// A tiny model and a short schedule; --threads fixed so the bytes repeat on any machine.
const TRAIN = ['train', '--pron', DICT, '--dev-fraction', FRACTION, '--hidden', '16', '--embedding', '8', '--batch', '16',
  '--lr', '0.01', '--warmup', '10', '--seed', '4'];

// `attnseq info`'s metadata lines ("key: value").
function metadataOf(out) {
  const m = {};
  for (const l of out.split('\n')) {
    const x = /^([a-z_]+): ?(.*)$/.exec(l);
    if (x) m[x[1]] = x[2];
  }
  return m;
}

test('train --pron: epochs over the words with a dev split, progress, the best checkpoint and the latest', () => {
  const out = path.join(TMP, 'a.safetensors');
  const r = ok([...TRAIN, '--epochs', '3', '--threads', '1', '--out', out]);
  // The first line states the split; words are held out by word, the training pairs are the rest's lines.
  const head = /^(\d+) training pairs \((\d+) words\), (\d+) dev words \(--dev-fraction 0\.1, --dev-seed 1\); (\d+) batches of 16 per epoch$/m.exec(r.err);
  assert.ok(head, r.err);
  const [pairs, trainWords, devWords, batches] = head.slice(1).map(Number);
  assert.equal(trainWords + devWords, WORDS.size);
  assert.equal(devWords, Math.round(0.1 * WORDS.size));
  assert.ok(pairs >= trainWords && pairs < LINES.length, `${pairs} pairs`);
  assert.equal(batches, Math.ceil(pairs / 16));
  // One report per epoch; the progress line shows epoch, step, loss, dev WER and the time left.
  const epochs = [...r.err.matchAll(/epoch (\d)\/3: train loss (\d+\.\d+), dev WER (\d\.\d{4}) PER (\d+\.\d{4}) \((\d+) words, beam 1\)/g)];
  assert.deepEqual(epochs.map((m) => +m[1]), [1, 2, 3]);
  for (const m of epochs) assert.equal(+m[5], devWords);
  assert.ok(+epochs[2][2] < +epochs[0][2], 'the training loss falls');
  assert.match(r.err, /epoch 2\/3 {2}batch \d+\/\d+ {2}step \d+ {2}loss \d+\.\d+ {2}dev WER \d\.\d{4} \(best WER \d\.\d{4}, epoch \d\) .* left \d+m\d\ds \(epoch\), <= \d+m\d\ds \(run\)/);
  const m = /^trained (\d+) steps in \d+(?:\.\d+)? s \((\d+) target tokens\/s\); best dev WER (\d\.\d{4}) at epoch (\d) of 3, saved /.exec(lastLine(r.out));
  assert.ok(m, lastLine(r.out));
  assert.equal(+m[1], 3 * batches);
  const bestWer = Math.min(...epochs.map((e) => +e[3]));
  assert.equal(+m[3], bestWer);
  for (const f of [out, `${out}.last`, `${out}.last.trainer`]) assert.ok(existsSync(f), f);

  // The best checkpoint is the best epoch's: its recorded dev WER is what eval measures on the same split.
  const info = ok(['info', '--model', out]).out;
  assert.match(info, /tokenizer char -> word, src_case upper/);
  const meta = metadataOf(info);
  assert.equal(meta.task, 'pron');
  assert.equal(+meta.epoch, +m[4]);
  assert.equal(+epochs[+m[4] - 1][3], bestWer);
  const dev = JSON.parse(ok(['eval', '--model', out, '--pron', DICT, '--dev-fraction', FRACTION, '--json', '--threads', '1']).out);
  assert.equal(dev.words, devWords);
  assert.equal(dev.wer.toFixed(6), meta.dev_wer);
  assert.equal(dev.per.toFixed(6), meta.dev_per);
  // The latest checkpoint holds the last epoch's weights: it scores that epoch's figures.
  const latest = JSON.parse(ok(['eval', '--model', `${out}.last`, '--pron', DICT, '--dev-fraction', FRACTION, '--json']).out);
  assert.ok(Math.abs(latest.wer - +epochs[2][3]) <= 5.1e-5, `${latest.wer} vs ${epochs[2][3]}`);
  assert.ok(Math.abs(latest.per - +epochs[2][4]) <= 5.1e-5, `${latest.per} vs ${epochs[2][4]}`);
  // Letters in any case read as the upper case the model was trained on.
  const tr = (w) => JSON.parse(ok(['translate', '--model', out, '--json', w]).out).text;
  assert.equal(tr('knight'), tr('KNIGHT'));
  assert.equal(tr('Abbey'), tr('ABBEY'));
});

test('train --pron: stopped and resumed, in place or into another file, ends with the uninterrupted run\'s bytes', () => {
  const args = [...TRAIN, '--epochs', '3', '--threads', '2', '--dropout', '0.2', '--label-smoothing', '0.1', '--quiet'];
  const a = path.join(TMP, 'r-a.safetensors');
  ok([...args, '--save-every', '5', '--out', a]);
  // Stopped mid-epoch twice (the second time after a --save-every save), then run to the end.
  const b = path.join(TMP, 'r-b.safetensors');
  let r = ok([...args, '--stop-after', '17', '--out', b]);
  assert.match(lastLine(r.out), /^trained 17 steps in .*; stopped at epoch 1, batch 17\/\d+ \(--stop-after 17\); saved .*r-b\.safetensors\.last \(\+ \.trainer\): continue with --resume /);
  assert.ok(!existsSync(b), 'no epoch has ended: no best checkpoint yet');
  r = ok([...args, '--save-every', '5', '--stop-after', '9', '--resume', `${b}.last`, '--out', b]);
  assert.match(lastLine(r.out), /^trained 9 steps in /);
  r = ok([...args, '--save-every', '5', '--resume', `${b}.last`, '--out', b]);
  assert.match(lastLine(r.out), /^trained \d+ steps in .*best dev WER/);
  for (const s of ['', '.last', '.last.trainer']) assert.ok(same(a + s, b + s), `${b}${s} equals the uninterrupted run's`);
  // Resumed into another --out: the best checkpoint is rebuilt from the state there.
  const c = path.join(TMP, 'r-c.safetensors'), d = path.join(TMP, 'r-d.safetensors');
  ok([...args, '--stop-after', '40', '--out', c]);
  assert.ok(existsSync(c), 'an epoch ended: a best checkpoint');
  ok([...args, '--resume', `${c}.last`, '--out', d]);
  for (const s of ['', '.last', '.last.trainer']) assert.ok(same(a + s, d + s), `${d}${s} equals the uninterrupted run's`);

  // Nothing left to do; another seed, batch size or data set is another run.
  refused([...args, '--resume', `${a}.last`, '--out', path.join(TMP, 'r-e.safetensors')], '--epochs 3 must exceed the 3 epochs already done');
  const e = path.join(TMP, 'r-e.safetensors');
  refused([...withFlag(args, '--seed', '5'), '--resume', `${c}.last`, '--out', e], '--seed: the state was saved with 4, this run asks for 5');
  refused([...withFlag(args, '--batch', '8'), '--resume', `${c}.last`, '--out', e], '--batch: the state was saved with 16, this run asks for 8');
  refused([...args, '--dev-seed', '2', '--resume', `${c}.last`, '--out', e], '--dev-seed: the state was saved with 1, this run asks for 2');
  // The model's configuration too: the same parameter count with another attention is another run.
  refused([...args, '--style', 'bahdanau', '--resume', `${c}.last`, '--out', e], '--style: the state was saved with luong, this run asks for bahdanau');
  refused([...args, '--input-feeding', '--resume', `${c}.last`, '--out', e], '--input-feeding: the state was saved with no, this run asks for yes');
  // Another dictionary (one word's pronunciation changed) is other data.
  const other = path.join(TMP, 'other.dict');
  writeFileSync(other, readFileSync(DICT, 'utf8').replace(/\t(\S+)/, '\t$1 AH'));
  refused([...withFlag(args, '--pron', other), '--resume', `${c}.last`, '--out', e], '--pron: the state was saved with fnv1a:');
  cliUsage([...args, '--seed', '5', '--resume', `${c}.last`, '--out', path.join(TMP, 'r-e.safetensors')], '--seed is given twice');
  refused([...args, '--resume', c, '--out', path.join(TMP, 'r-e.safetensors')], `cannot read '${c}.trainer'`, '--resume OUT.last');
  assert.ok(!existsSync(path.join(TMP, 'r-e.safetensors')));
});

test('train --pron: a save that cannot be written leaves the previous state, and the run still ends the same', () => {
  const dir = path.join(TMP, 'ulimit');
  mkdirSync(dir);
  const args = [...TRAIN, '--epochs', '2', '--threads', '1', '--quiet'];
  const ref = path.join(dir, 'ref.safetensors');
  ok([...args, '--out', ref]);
  const out = path.join(dir, 'run.safetensors');
  ok([...args, '--stop-after', '5', '--out', out]);
  const last = readFileSync(`${out}.last`), state = readFileSync(`${out}.last.trainer`);
  const ckptBytes = statSync(`${out}.last`).size;
  assert.ok(state.length > ckptBytes + 4096, `sizes ${ckptBytes}, ${state.length}`);
  // 1. The state does not fit (the checkpoints do): exit 1 naming it, the previous pair unchanged.
  const limitKB = Math.ceil(ckptBytes / 1024) + 1;
  let r = run([...args, '--save-every', '3', '--resume', `${out}.last`, '--out', out], { fileLimitKB: limitKB });
  assert.equal(r.code, 1, `${r.what}: exit ${r.code}; stdout: ${r.out}`);
  assert.ok(r.err.includes(`cannot write '${out}.last.trainer': File too large`), r.err);
  assert.ok(readFileSync(`${out}.last`).equals(last), 'the latest checkpoint is the one of the saved state');
  assert.ok(readFileSync(`${out}.last.trainer`).equals(state), 'the saved state is intact');
  // 2. Nothing fits: the same.
  r = run([...args, '--resume', `${out}.last`, '--out', out], { fileLimitKB: 4 });
  assert.equal(r.code, 1);
  assert.ok(readFileSync(`${out}.last.trainer`).equals(state));
  // No temporary file is left behind, and the run, resumed, ends as the uninterrupted one.
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), []);
  ok([...args, '--resume', `${out}.last`, '--out', out]);
  for (const s of ['', '.last', '.last.trainer']) assert.ok(same(ref + s, out + s), `run${s}`);
});

test('train --pron: a state with non-finite values or a field that does not parse is refused, naming it', () => {
  const dir = path.join(TMP, 'corrupt');
  mkdirSync(dir);
  const args = [...TRAIN, '--epochs', '2', '--threads', '1', '--quiet'];
  const out = path.join(dir, 'run.safetensors');
  ok([...args, '--stop-after', '5', '--out', out]);
  const state = readFileSync(`${out}.last.trainer`);
  const bad = path.join(dir, 'bad.safetensors');
  const resume = (bytes, ...want) => {
    writeFileSync(`${bad}.last.trainer`, bytes);
    refused([...args, '--resume', `${bad}.last`, '--out', bad], ...want);
    assert.ok(!existsSync(bad) && !existsSync(`${bad}.last`), 'nothing written');
  };
  resume(withF32(state, 'adam.m', (x, i) => (i === 3 ? NaN : x)), "'adam.m' holds nan at index 3");
  resume(withF32(state, 'adam.v', (x, i) => (i === 0 ? -1 : x)), "'adam.v' holds -1 at index 0");
  resume(withF32(state, 'params', (x, i) => (i === 7 ? Infinity : x)), "'params' holds inf at index 7");
  resume(withMetadata(state, { step: '5x' }), "'step' is \"5x\", not an integer");
  resume(withMetadata(state, { rng: 'abc' }), "'rng' is \"abc\"");
  resume(withMetadata(state, { lr_scale: 'nan' }), "'lr_scale' is \"nan\"");
  // A state saved before states recorded their run (no "run:" entries) cannot be checked: refused.
  const old = withHeader(state, (h) => ({ ...h, __metadata__: Object.fromEntries(Object.entries(h.__metadata__).filter(([k]) => !k.startsWith('run:'))) }));
  resume(old, 'saved by an older attnseq');
});

test('train --pron: a step whose loss is not finite stops the run, naming the step, and keeps the files saved last', () => {
  const dir = path.join(TMP, 'diverge');
  mkdirSync(dir);
  const args = [...TRAIN, '--epochs', '2', '--threads', '1', '--quiet'];
  const out = path.join(dir, 'run.safetensors');
  ok([...args, '--stop-after', '5', '--out', out]);
  // Finite weights so large that the next step overflows.
  writeFileSync(`${out}.last.trainer`, withF32(readFileSync(`${out}.last.trainer`), 'params', (x) => (x > 0 ? 3e38 : -3e38)));
  const before = [`${out}.last`, `${out}.last.trainer`].map((f) => readFileSync(f));
  const r = run([...args, '--save-every', '1', '--resume', `${out}.last`, '--out', out]);
  assert.equal(r.code, 1, `${r.what}: exit ${r.code}; stderr: ${r.err}`);
  assert.match(r.err, /step 6: the loss is (nan|inf|-nan); the step was not applied; stopped: the files saved last \(step 5\) are kept/);
  assert.doesNotMatch(r.out, /trained/);
  assert.ok(readFileSync(`${out}.last`).equals(before[0]) && readFileSync(`${out}.last.trainer`).equals(before[1]));
  assert.ok(!existsSync(out), 'no best checkpoint appears');
});

test('train --pron: temporary files a killed save left are removed at the next start, only this run\'s', () => {
  const dir = path.join(TMP, 'stale');
  mkdirSync(dir);
  const out = path.join(dir, 'run.safetensors');
  const stale = [`${out}.tmp-Ab12Cd`, `${out}.last.tmp-000000`, `${out}.last.trainer.tmp-zZzZzZ`];
  const kept = [`${out}.tmp-short`, `${out}.tmp-toolong1`, path.join(dir, 'other.safetensors.tmp-Ab12Cd'), path.join(dir, 'notes.txt')];
  for (const f of [...stale, ...kept]) writeFileSync(f, 'x');
  const r = ok([...TRAIN, '--epochs', '1', '--threads', '1', '--out', out]);
  assert.match(r.err, /removed 3 temporary file\(s\) left by an interrupted save/);
  assert.deepEqual(readdirSync(dir).sort(), [...kept.map((f) => path.basename(f)), 'run.safetensors', 'run.safetensors.last', 'run.safetensors.last.trainer'].sort());
});

test('train --pron and eval --pron: a directory is named as one; a BOM is dropped', () => {
  const folder = path.join(TMP, 'a-folder');
  mkdirSync(folder);
  const never = path.join(TMP, 'never.safetensors');
  refused([...withFlag(TRAIN, '--pron', folder), '--epochs', '1', '--out', never], `cannot read '${folder}': it is a directory`);
  assert.ok(!existsSync(never));
  const model = path.join(TMP, 'bom.safetensors');
  ok([...TRAIN, '--epochs', '1', '--threads', '1', '--quiet', '--out', model]);
  refused(['eval', '--model', model, '--pron', folder], `cannot read '${folder}': it is a directory`);
  const bom = path.join(TMP, 'bom.dict');
  writeFileSync(bom, '\uFEFF' + LINES.join('\n') + '\n');
  const score = (file) => JSON.parse(ok(['eval', '--model', model, '--pron', file, '--json', '--threads', '1']).out);
  assert.deepEqual(score(bom), score(DICT));
});

test('train --pron: epochs without a better dev WER halve the rate and --patience stops the run', () => {
  const out = path.join(TMP, 'stop.safetensors');
  // A rate too small to change a float weight: every epoch decodes the same, so none is better.
  const args = [...TRAIN.map((x) => (x === '0.01' ? '1e-20' : x)), '--epochs', '10', '--patience', '2', '--threads', '1'];
  const r = ok([...args, '--out', out]);
  assert.match(r.err, /epoch 1\/10: .*best so far/);
  assert.match(r.err, /epoch 2\/10: .*not better than epoch 1 \(1 in a row\), rate x0\.5/);
  assert.match(r.err, /epoch 3\/10: .*not better than epoch 1 \(2 in a row\), rate x0\.25; stopping \(--patience\)/);
  assert.doesNotMatch(r.err, /epoch 4\/10:/);
  assert.match(lastLine(r.out), /best dev WER \d\.\d{4} at epoch 1 of 3, saved /);
  refused([...args, '--resume', `${out}.last`, '--out', out], 'stopped at epoch 3, 2 epochs without a better dev figure: nothing left to do');
});

test('eval --pron: WER, PER and by word length as built, with several references, beam and threads', () => {
  const model = path.join(TMP, 'eval.safetensors');
  ok([...TRAIN, '--epochs', '2', '--threads', '1', '--quiet', '--out', model]);
  const output = (w, beam) => JSON.parse(ok(['translate', '--model', model, '--json', '--beam', String(beam), w]).out).text;
  const phonemes = 'AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' ');
  // Words of several lengths whose greedy output is not empty (a reference cannot be).
  const words = [...WORDS].filter((w) => output(w, 1) !== '').slice(0, 8);
  assert.equal(words.length, 8);
  let errors = 0, edits = 0, refLen = 0;
  const byLen = new Map();
  const lines = words.map((w, i) => {
    const out = output(w, 1).split(' ');
    const absent = phonemes.find((p) => !out.includes(p));
    let refs, e, len;
    switch (i % 4) {
      case 0: refs = [out]; e = 0; len = out.length; break;                          // right
      case 1: refs = [[...out, absent], out]; e = 0; len = out.length; break;        // right by its second reference
      case 2: refs = [[...out, absent]]; e = 1; len = out.length + 1; break;         // one insertion away
      default: refs = [Array(out.length + 2).fill(absent)]; e = out.length + 2; len = out.length + 2;  // nothing in common
    }
    errors += e > 0;
    edits += e;
    refLen += len;
    const b = byLen.get(w.length) ?? { words: 0, errors: 0, edits: 0, ref: 0 };
    b.words += 1, b.errors += e > 0, b.edits += e, b.ref += len;
    byLen.set(w.length, b);
    return `${w}\t${refs.map((x) => x.join(' ')).join('\t')}`;
  });
  const refFile = path.join(TMP, 'built.ref');
  writeFileSync(refFile, lines.join('\n') + '\n');
  const j = JSON.parse(ok(['eval', '--model', model, '--pron', refFile, '--json', '--threads', '1']).out);
  assert.equal(j.words, 8);
  assert.equal(j.word_errors, errors);
  assert.equal(j.phoneme_edits, edits);
  assert.equal(j.ref_phonemes, refLen);
  assert.equal(j.wer, +(errors / 8).toFixed(6));
  assert.equal(j.per, +(edits / refLen).toFixed(6));
  assert.equal(j.beam, 1);
  assert.deepEqual(j.by_length.map((b) => b.letters), [...byLen.keys()].sort((x, y) => x - y));
  for (const b of j.by_length) {
    const want = byLen.get(b.letters);
    assert.deepEqual([b.words, b.word_errors, b.phoneme_edits, b.ref_phonemes], [want.words, want.errors, want.edits, want.ref], `length ${b.letters}`);
  }
  // Two threads: the same report. The text form says the same.
  assert.deepEqual(JSON.parse(ok(['eval', '--model', model, '--pron', refFile, '--json', '--threads', '2']).out), j);
  const text = ok(['eval', '--model', model, '--pron', refFile]).out;
  assert.match(text, new RegExp(`^WER  ${(errors / 8).toFixed(4)} \\(${errors}/8 words wrong`, 'm'));
  assert.match(text, new RegExp(`^PER  ${(edits / refLen).toFixed(4)} \\(${edits} phoneme edits / ${refLen} phonemes`, 'm'));
  assert.match(text, /^by word length \(letters\):$/m);
  // --beam decodes with the beam: references made of the beam's outputs are all right at beam 5.
  const beamFile = path.join(TMP, 'beam.ref');
  writeFileSync(beamFile, words.map((w) => `${w}\t${output(w, 5)}`).join('\n') + '\n');
  const b5 = JSON.parse(ok(['eval', '--model', model, '--pron', beamFile, '--beam', '5', '--json']).out);
  assert.equal(b5.word_errors, 0);
  assert.equal(b5.beam, 5);
  // --dev-fraction scores only the held-out words of that split.
  const dev = JSON.parse(ok(['eval', '--model', model, '--pron', DICT, '--dev-fraction', FRACTION, '--json']).out);
  assert.equal(dev.words, Math.round(0.1 * WORDS.size));

  // --hyp writes each scored word and its output as a dictionary line, in the file's order: what
  // translate says at that beam, and a file that scores as all right against itself.
  const hyp = path.join(TMP, 'built.hyp');
  assert.deepEqual(JSON.parse(ok(['eval', '--model', model, '--pron', refFile, '--beam', '5', '--json', '--hyp', hyp]).out),
    JSON.parse(ok(['eval', '--model', model, '--pron', refFile, '--beam', '5', '--json']).out), '--hyp changes no figure');
  assert.equal(readFileSync(hyp, 'utf8'), words.map((w) => `${w}\t${output(w, 5)}\n`).join(''));
  assert.equal(JSON.parse(ok(['eval', '--model', model, '--pron', hyp, '--beam', '5', '--json']).out).word_errors, 0);
  // With --dev-fraction, the held-out words only, each once (a word of two pronunciations too), in order.
  const devHyp = path.join(TMP, 'dev.hyp');
  ok(['eval', '--model', model, '--pron', DICT, '--dev-fraction', FRACTION, '--hyp', devHyp, '--threads', '2']);
  const held = readFileSync(devHyp, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
  assert.equal(held.length, dev.words);
  assert.equal(new Set(held).size, held.length);
  assert.deepEqual(held, [...WORDS].filter((w) => held.includes(w)), 'the dictionary\'s order');
  // An unwritable --hyp is named, and the figures are not printed as if all went well.
  refused(['eval', '--model', model, '--pron', refFile, '--hyp', path.join(TMP, 'no-such-dir', 'x.hyp')], 'no-such-dir');
  cliUsage(['eval', '--model', model, '--pron', refFile, '--lang', 'de'], '--lang applies to --src/--tgt only');
  cliUsage(['eval', '--model', model, '--task', 'copy', '--hyp', hyp], '--hyp applies to --src/--tgt and --pron');
});

test('bad dictionaries, bad words and bad flags are refused by name; odd input to a G2P model is answered', () => {
  const model = path.join(TMP, 'a.safetensors');
  if (!existsSync(model)) ok([...TRAIN, '--epochs', '1', '--threads', '1', '--quiet', '--out', model]);
  const never = path.join(TMP, 'never.safetensors');
  const bad = (name, text) => {
    const f = path.join(TMP, name);
    writeFileSync(f, `${LINES.slice(0, 40).join('\n')}\n${text}\n`);
    return f;
  };
  const cases = [
    [bad('digit.dict', 'R2D2\tAA R'), 'digit.dict:41: character \'2\' at column 2 of the word is outside A-Z and the apostrophe'],
    [bad('punct.dict', 'HI!\tHH AY'), 'punct.dict:41: character \'!\' at column 3'],
    [bad('emoji.dict', 'HI😀\tHH AY'), 'emoji.dict:41: character byte 0xF0 at column 3'],
    [bad('empty.dict', '\tHH AY'), 'empty.dict:41: empty word before the tab'],
    [bad('notab.dict', 'HELLO HH AH L OW'), 'notab.dict:41: no tab'],
    [bad('phoneme.dict', 'HELLO\tHH AH0 L OW'), 'phoneme.dict:41: phoneme "AH0"'],
    [bad('lower.dict', 'hello\tHH AH L OW'), 'lower.dict:41: character \'h\''],
  ];
  for (const [f, message] of cases) {
    refused(['train', '--pron', f, '--epochs', '1', '--out', never], message);
    refused(['eval', '--model', model, '--pron', f], message);
  }
  // 10,000 letters: a word the model cannot read, named (shortened) with the limit.
  const long = bad('long.dict', `${'A'.repeat(10000)}\tEY`);
  refused(['train', '--pron', long, '--dev-fraction', '0.5', '--epochs', '1', '--out', never], "word 'AAAAAAAAAAAA...' (10000 bytes) is longer than the 1024 source tokens");
  refused(['eval', '--model', model, '--pron', long], "word 'AAAAAAAAAAAA...' (10000 bytes) is longer than the 1024 source tokens");
  refused(['train', '--pron', path.join(TMP, 'missing.dict'), '--out', never], 'cannot open');

  // Flags: each named when out of range, or when it belongs to the other way of training (usage errors: exit 2).
  const T = [...TRAIN, '--epochs', '1', '--out', never];
  cliUsage([...T, '--steps', '10'], '--steps does not apply to --pron');
  cliUsage([...T, '--tokenizer', 'word'], '--tokenizer does not apply to --pron');
  cliUsage(['train', '--task', 'copy', '--epochs', '3', '--out', never], '--epochs applies to training in epochs (--pron, --src/--tgt) only');
  cliUsage(['train', '--task', 'copy', '--pron', DICT, '--out', never], 'give exactly one of --task NAME, --data FILE.tsv, --pron FILE or --src/--tgt');
  for (const [flag, value, message] of [
    ['--dev-fraction', '0', "--dev-fraction expects a number in (0, 0.5], got '0'"],
    ['--dev-fraction', '0.9', "--dev-fraction expects a number in (0, 0.5], got '0.9'"],
    ['--dev-fraction', 'half', "--dev-fraction expects a number, got 'half'"],
    ['--eval-beam', '0', '--eval-beam expects an integer in [1, 64]'],
    ['--eval-beam', '65', '--eval-beam expects an integer in [1, 64]'],
    ['--lr-decay', '0', "--lr-decay expects a number in (0, 1], got '0'"],
    ['--lr-decay', '1.5', "--lr-decay expects a number in (0, 1], got '1.5'"],
    ['--dropout', '1', "--dropout expects a number in [0, 1), got '1'"],
    ['--label-smoothing', '-0.1', "--label-smoothing expects a number in [0, 1), got '-0.1'"],
    ['--patience', '-1', '--patience expects an integer in [0, 100000]'],
    ['--stop-after', '0', '--stop-after expects an integer in [1, 100000000]'],
    ['--bucket', '0', '--bucket expects an integer in [1, 100000]'],
    ['--epochs', '0', '--epochs expects an integer in [1, 100000]'],
  ]) cliUsage(withFlag(T, flag, value), message);
  cliUsage(['eval', '--model', model, '--pron', DICT, '--n', '5'], '--n does not apply to --pron');
  cliUsage(['eval', '--model', model, '--pron', DICT, '--dev-seed', '3'], '--dev-seed needs --dev-fraction');
  cliUsage(['eval', '--model', model, '--task', 'copy', '--dev-fraction', '0.1'], '--dev-fraction applies to --pron only');
  refused(['eval', '--model', path.join(ROOT, 'models/dates.safetensors'), '--pron', DICT], 'which the model\'s target vocabulary lacks');
  assert.ok(!existsSync(never), 'nothing refused wrote a file');

  // A G2P model given what is not a word: a coded error or a well-defined output, never a crash.
  refused(['translate', '--model', model, ''], 'the source is empty');
  refused(['translate', '--model', model, 'a'.repeat(10000)], 'the source has 10000 tokens; the maximum is 1024');
  for (const text of ['1234', 'R2-D2!', '😀', "o'neil", 'ÉCOLE']) {
    const r = ok(['translate', '--model', model, '--json', text]);
    const j = JSON.parse(r.out);
    assert.equal(j.srcTokens.length, [...text].length, `${text}: one source token per character`);
    assert.ok(Array.isArray(j.tgtTokens), text);
  }
});
