// The native command line's `train --task/--data` saves and resumes (build/native/attnseq, or
// $ATTNSEQ_NATIVE_CLI): the state is the commit point and holds its own weights, so a checkpoint from
// another save beside it changes nothing; a state from another run (model, data, seed, batch) is
// refused naming the flag; non-finite or unparsable states are refused naming the tensor or field; a
// diverged step stops the run keeping the previous files; temporary files of killed saves are
// cleaned. And the TSV reader (BOM, reserved spellings, directories) and `eval --data`, which scores
// every line once with the checkpoint's own tokenizers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage, runCli } from './native.mjs';
import { withF32, withHeader, withMetadata } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-train-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const ok = cliOk;
const refused = cliRefused;
const same = (a, b) => readFileSync(a).equals(readFileSync(b));
const TRAIN = ['train', '--task', 'copy', '--hidden', '8', '--embedding', '8', '--seed', '3', '--quiet'];
// Two TSV files with the same vocabulary sizes (so the same parameter count): other data all the same.
const TSV_A = path.join(TMP, 'a.tsv'), TSV_B = path.join(TMP, 'b.tsv');
writeFileSync(TSV_A, 'ab\tba\ncd\tdc\nabc\tcba\n');
writeFileSync(TSV_B, 'ab\tba\ncd\tdc\ndc\tcd\n');
const DATA = (file) => ['train', '--data', file, '--tokenizer', 'char', '--hidden', '8', '--embedding', '8', '--seed', '3', '--quiet'];

test('train --resume: the weights come from the state, so a checkpoint of another save beside it changes nothing', () => {
  const straight = path.join(TMP, 'straight.safetensors');
  ok([...TRAIN, '--steps', '6', '--out', straight]);
  // A kill between the renames of a save leaves the new checkpoint beside the older state.
  const mixed = path.join(TMP, 'mixed.safetensors'), newer = path.join(TMP, 'newer.safetensors');
  ok([...TRAIN, '--steps', '3', '--out', mixed]);
  ok([...TRAIN, '--steps', '4', '--out', newer]);
  copyFileSync(newer, mixed);
  const resumed = path.join(TMP, 'resumed.safetensors');
  ok([...TRAIN, '--steps', '6', '--resume', mixed, '--out', resumed]);
  assert.ok(same(resumed, straight), 'the run continues from the state (step 3), not from the newer weights');
  assert.ok(same(`${resumed}.trainer`, `${straight}.trainer`));
  // The state is self-contained: it resumes without the checkpoint at all.
  rmSync(mixed);
  ok([...TRAIN, '--steps', '6', '--resume', mixed, '--out', resumed]);
  assert.ok(same(resumed, straight));
});

test('train --resume: a state from another run is refused, naming what differs', () => {
  const a = path.join(TMP, 'run-a.safetensors');
  ok([...DATA(TSV_A), '--steps', '2', '--out', a]);
  const e = path.join(TMP, 'never.safetensors');
  const resume = (args, want) => refused([...args, '--steps', '4', '--resume', a, '--out', e], want);
  resume(DATA(TSV_B), '--data: the state was saved with fnv1a:');
  resume(DATA(TSV_A).map((x) => (x === '3' ? '4' : x)), '--seed: the state was saved with 3, this run asks for 4');
  resume([...DATA(TSV_A), '--batch', '8'], '--batch: the state was saved with 32, this run asks for 8');
  resume([...DATA(TSV_A), '--style', 'bahdanau'], '--style: the state was saved with luong, this run asks for bahdanau');
  resume([...DATA(TSV_A), '--cell', 'lstm'], '--cell: the state was saved with gru, this run asks for lstm');
  resume(['train', '--task', 'copy', ...DATA(TSV_A).slice(3)], '--task: the state does not record it, this run asks for copy');
  assert.ok(!existsSync(e));
  ok([...DATA(TSV_A), '--steps', '4', '--lr', '0.001', '--resume', a, '--out', e]);  // the rate may change
});

test('train --resume: non-finite values, fields that do not parse and states of an older attnseq are refused by name', () => {
  const a = path.join(TMP, 'state.safetensors');
  ok([...TRAIN, '--steps', '2', '--out', a]);
  const state = readFileSync(`${a}.trainer`);
  const bad = path.join(TMP, 'bad.safetensors');
  const e = path.join(TMP, 'never2.safetensors');
  const resume = (bytes, ...want) => {
    writeFileSync(`${bad}.trainer`, bytes);
    refused([...TRAIN, '--steps', '4', '--resume', bad, '--out', e], `--resume: '${bad}.trainer': `, ...want);
    assert.ok(!existsSync(e));
  };
  resume(withF32(state, 'adam.m', (x, i) => (i === 2 ? NaN : x)), "'adam.m' holds nan at index 2");
  resume(withF32(state, 'adam.v', (x, i) => (i === 2 ? Infinity : x)), "'adam.v' holds inf at index 2");
  resume(withF32(state, 'params', (x, i) => (i === 0 ? NaN : x)), "'params' holds nan at index 0");
  resume(withMetadata(state, { step: 'two' }), `'step' is "two", not an integer in [0, 2147483647]`);
  resume(withMetadata(state, { rng: '' }), `'rng' is "", not an unsigned 64-bit integer`);
  // What attnseq wrote before states held their weights: the Trainer's own fields alone.
  const old = withHeader(state, (h) => {
    const { params, ...rest } = h;
    return { ...rest, __metadata__: { step: h.__metadata__.step, rng: h.__metadata__.rng, lr_scale: h.__metadata__.lr_scale } };
  });
  resume(old, 'saved by an older attnseq', 'train again without --resume');
});

test('train: a step whose loss is not finite stops the run, naming the step; the previous files are kept', () => {
  const a = path.join(TMP, 'diverge.safetensors');
  ok([...TRAIN, '--steps', '2', '--out', a]);
  writeFileSync(`${a}.trainer`, withF32(readFileSync(`${a}.trainer`), 'params', (x) => (x > 0 ? 3e38 : -3e38)));
  const before = [readFileSync(a), readFileSync(`${a}.trainer`)];
  const r = runCli([...TRAIN, '--steps', '5', '--resume', a, '--out', a]);
  assert.equal(r.code, 1, `${r.what}: exit ${r.code}`);
  assert.match(r.err, /step 3: the loss is -?(nan|inf); the step was not applied; stopped without saving: the previous files are kept/);
  assert.ok(readFileSync(a).equals(before[0]) && readFileSync(`${a}.trainer`).equals(before[1]));
});

test('train: temporary files of an interrupted save are removed at the next start, only those of its outputs', () => {
  const dir = path.join(TMP, 'stale');
  mkdirSync(dir);
  const out = path.join(dir, 'm.safetensors');
  const stale = [`${out}.tmp-q1W2e3`, `${out}.trainer.tmp-ABCDEF`];
  const kept = [`${out}.tmp-q1W2`, path.join(dir, 'n.safetensors.tmp-q1W2e3'), `${out}.last.tmp-q1W2e3`];
  for (const f of [...stale, ...kept]) writeFileSync(f, 'x');
  const r = ok([...TRAIN.filter((x) => x !== '--quiet'), '--steps', '1', '--out', out]);
  assert.match(r.err, /removed 2 temporary file\(s\) left by an interrupted save/);
  assert.deepEqual(readdirSync(dir).sort(), [...kept.map((f) => path.basename(f)), 'm.safetensors', 'm.safetensors.trainer'].sort());
});

test('train --data: a BOM is dropped, reserved spellings are refused naming file and line, a directory is named', () => {
  const bom = path.join(TMP, 'bom.tsv');
  writeFileSync(bom, '\uFEFF' + readFileSync(TSV_A, 'utf8'));
  const [x, y] = [path.join(TMP, 'plain.safetensors'), path.join(TMP, 'bom.safetensors')];
  ok([...DATA(TSV_A), '--steps', '2', '--out', x]);
  ok([...DATA(bom), '--steps', '2', '--out', y]);
  assert.ok(same(x, y), 'the same vocabulary and weights with and without the BOM');
  const reserved = path.join(TMP, 'reserved.tsv');
  writeFileSync(reserved, 'a b\tc d\nb c\td </s> e\n');
  const e = path.join(TMP, 'never3.safetensors');
  refused(['train', '--data', reserved, '--steps', '2', '--out', e],
    `'${reserved}': tsv line 2: target token 2 is "</s>", the spelling of a reserved token (<pad>, <s>, </s>, <unk>)`);
  writeFileSync(reserved, '<unk> b\tc\n');
  refused(['train', '--data', reserved, '--steps', '2', '--out', e], 'tsv line 1: source token 1 is "<unk>"');
  const folder = path.join(TMP, 'folder');
  mkdirSync(folder);
  refused(['train', '--data', folder, '--steps', '2', '--out', e], `cannot read '${folder}': it is a directory`);
  refused(['eval', '--model', x, '--data', folder], `cannot read '${folder}': it is a directory`);
  assert.ok(!existsSync(e));
});

test('eval --data: every line once, read by the checkpoint\'s own tokenizers; --n and --seed are refused', () => {
  const reverse = path.join(ROOT, 'models/reverse.safetensors');  // a character model
  const tsv = path.join(TMP, 'rev.tsv');
  const words = ['abc', 'hello', 'abcdefg', 'tsra', 'qpo', 'mnbv', 'ab'];
  writeFileSync(tsv, words.map((w) => `${w}\t${[...w].reverse().join('')}\n`).join(''));
  const j = JSON.parse(ok(['eval', '--model', reverse, '--data', tsv, '--json']).out);
  assert.equal(j.n, words.length, 'each line once');
  assert.ok(j.exact_match > 0.5, `the character model reads characters: exact match ${j.exact_match}`);
  assert.deepEqual(JSON.parse(ok(['eval', '--model', reverse, '--data', tsv, '--tokenizer', 'char', '--json']).out), j);
  const text = ok(['eval', '--model', reverse, '--data', tsv]).out;
  assert.match(text, new RegExp(`^data .*rev\\.tsv: ${words.length} examples \\(every line once\\), beam 1$`, 'm'));
  refused(['eval', '--model', reverse, '--data', tsv, '--tokenizer', 'word'],
    '--tokenizer word: the model reads char (its checkpoint\'s src_tokenizer); leave the flag out to use it');
  cliUsage(['eval', '--model', reverse, '--data', tsv, '--n', '2000'], '--n does not apply to --data, which scores every line of the file once');
  cliUsage(['eval', '--model', reverse, '--data', tsv, '--seed', '4'], '--seed does not apply to --data');
});
