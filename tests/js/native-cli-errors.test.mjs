// The native command line's (build/native/attnseq, or $ATTNSEQ_NATIVE_CLI) refusals and failure
// reports: numbers out of range instead of cut to 32 bits, output paths checked before training,
// failed writes that leave no truncated file and exit non-zero, a --resume that has nothing left to
// do, AER without gold links, unknown flags and stray arguments. Fails if the binary is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage, runCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const IDS_MODEL = path.join(ROOT, 'tests/data/parity/tensors_only.safetensors');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-errors-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const run = runCli;
const ok = (args) => cliOk(args).out;
const refused = cliRefused;
const usage = cliUsage;  // exit 2: the command line itself cannot be taken
// Folder entries other than `keep` (temporary files a failed write must not leave behind).
const strays = (dir, keep = []) => readdirSync(dir).filter((f) => !keep.includes(f));
// A small, quick training run (the copy task, tiny sizes).
const TRAIN = ['train', '--task', 'copy', '--hidden', '8', '--embedding', '8', '--seed', '3'];

test('18: numbers beyond 32 bits and negative seeds are refused as usage errors (exit 2), naming the flag and the value', () => {
  const reverse = MODEL('reverse');
  // Each of these used to run: 2^32 + 1 became beam 1 or max-length 1, id 2^32 + 5 became id 5.
  usage(['translate', '--model', reverse, '--beam', '4294967297', 'abc'], '--beam', "'4294967297'");
  usage(['translate', '--model', reverse, '--max-length', '4294967297', 'abc'], '--max-length', "'4294967297'");
  usage(['translate', '--model', reverse, '--beam', '18446744073709551617', 'abc'], '--beam', "'18446744073709551617'");
  usage(['translate', '--model', IDS_MODEL, '--ids', '4,4294967301'], '--ids', "'4294967301'");
  usage(['translate', '--model', IDS_MODEL, '--ids', '4,5', '--prefix', '4294967302'], '--prefix', "'4294967302'");
  // The JS API refuses a negative seed (and one beyond 2^53 - 1); so does the native CLI now.
  usage(['translate', '--model', reverse, '--temperature', '1', '--seed', '-1', 'abc'], '--seed', "'-1'");
  usage(['translate', '--model', reverse, '--temperature', '1', '--seed', '9007199254740992', 'abc'], '--seed', "'9007199254740992'");
  // Numbers that do not fit a float, or are not finite, are not passed on as infinities.
  usage(['translate', '--model', reverse, '--length-penalty', '1e39', 'abc'], '--length-penalty', "'1e39'");
  usage([...TRAIN, '--steps', '2', '--clip', 'inf', '--out', path.join(TMP, 'never.safetensors')], '--clip', "'inf'");
  usage(['eval', '--model', reverse, '--task', 'reverse', '--beam', '4294967297'], '--beam', "'4294967297'");
  assert.ok(!existsSync(path.join(TMP, 'never.safetensors')));

  // The values at the edges of the ranges arrive unchanged.
  const j = (args) => JSON.parse(ok(['translate', '--model', reverse, ...args, '--json', 'abcdef']));
  assert.equal(j(['--max-length', '2']).rows, 2, 'max-length 2 gives 2 tokens');
  assert.equal(j(['--beam', '64']).hypotheses.length, 64, 'beam 64 keeps 64 hypotheses');
  const a = j(['--temperature', '1', '--seed', '9007199254740991']);
  assert.deepEqual(j(['--temperature', '1', '--seed', '9007199254740991']).tokens, a.tokens, 'a seed is deterministic');
  const ids = JSON.parse(ok(['translate', '--model', IDS_MODEL, '--ids', '4,12', '--json']));
  assert.deepEqual(ids.srcIds, [4, 12]);
});

test('19: train checks every output path before the first step', () => {
  const dir = path.join(TMP, 'precheck');
  mkdirSync(dir);
  const folderAsTrainer = path.join(dir, 'trainer-is-a-folder.safetensors');
  mkdirSync(`${folderAsTrainer}.trainer`);
  const folderAsOut = path.join(dir, 'out-is-a-folder.safetensors');
  mkdirSync(folderAsOut);
  const cases = [
    [path.join(dir, 'no-such-folder', 'm.safetensors'), path.join(dir, 'no-such-folder', 'm.safetensors')],
    [folderAsOut, folderAsOut],
    [folderAsTrainer, `${folderAsTrainer}.trainer`],
  ];
  for (const [out, named] of cases) {
    // Without --quiet the progress line shows each step; a refusal before training has none.
    const r = refused([...TRAIN, '--steps', '3', '--out', out], `cannot write '${named}'`);
    assert.doesNotMatch(r.err, /step \d+\/3/, `${r.what}: refused before training, but it trained: ${r.err}`);
  }
  assert.ok(!existsSync(folderAsTrainer), 'no checkpoint without its trainer state');
  assert.deepEqual(strays(dir).sort(), ['out-is-a-folder.safetensors', 'trainer-is-a-folder.safetensors.trainer']);
});

test('20: a write that fails (ulimit -f) exits non-zero, names the file and leaves no truncated file', () => {
  const dir = path.join(TMP, 'ulimit');
  mkdirSync(dir);
  // A model whose checkpoint (about 70 KB) and trainer state (about twice that) exceed 8 KiB.
  const args = ['train', '--task', 'copy', '--hidden', '32', '--embedding', '32', '--steps', '2', '--seed', '5', '--quiet'];
  const good = path.join(dir, 'good.safetensors');
  ok([...args, '--out', good]);
  const ckptBytes = statSync(good).size, stateBytes = statSync(`${good}.trainer`).size;
  assert.ok(ckptBytes > 8 * 1024 && stateBytes > ckptBytes, `sizes ${ckptBytes}, ${stateBytes}`);

  // 1. The checkpoint cannot be written: nothing appears under the real names.
  const fresh = path.join(dir, 'fresh.safetensors');
  let r = run([...args, '--out', fresh], { fileLimitKB: 8 });
  assert.notEqual(r.code, 0, `${r.what}: exit 0 although the write failed; stdout: ${r.out}`);
  assert.ok(r.err.includes(`cannot write '${fresh}': File too large`), `${r.what}: stderr: ${r.err}`);
  assert.doesNotMatch(r.out, /saved/);
  // 2. An existing checkpoint keeps its bytes when its replacement cannot be written.
  const before = readFileSync(good), beforeState = readFileSync(`${good}.trainer`);
  r = run([...args, '--steps', '3', '--out', good], { fileLimitKB: 8 });
  assert.notEqual(r.code, 0, `${r.what}: exit 0 although the write failed`);
  assert.ok(readFileSync(good).equals(before), 'the previous checkpoint is intact');
  assert.ok(readFileSync(`${good}.trainer`).equals(beforeState), 'the previous trainer state is intact');
  // 3. The checkpoint fits but its trainer state does not: an error, and neither file is replaced.
  const limitKB = Math.ceil(ckptBytes / 1024) + 1;
  assert.ok(stateBytes > limitKB * 1024);
  const half = path.join(dir, 'half.safetensors');
  r = run([...args, '--out', half], { fileLimitKB: limitKB });
  assert.notEqual(r.code, 0, `${r.what}: exit 0 although the trainer state was not written; stdout: ${r.out}`);
  assert.ok(r.err.includes(`cannot write '${half}.trainer'`), r.err);
  assert.doesNotMatch(r.out, /saved/);
  assert.ok(!existsSync(half), 'no checkpoint without its trainer state');
  // No temporary file is left behind by any of the failures.
  assert.deepEqual(strays(dir).sort(), ['good.safetensors', 'good.safetensors.trainer']);
});

test('21: --resume with nothing left to do, AER without gold links, unknown flags and stray arguments', () => {
  // --steps is the total: resuming a 5-step state to 2 or 5 steps is refused, not "trained -3 steps".
  const five = path.join(TMP, 'five.safetensors');
  ok([...TRAIN, '--steps', '5', '--quiet', '--out', five]);
  for (const steps of ['2', '5']) {
    const out = path.join(TMP, `resumed-${steps}.safetensors`);
    refused([...TRAIN, '--steps', steps, '--resume', five, '--out', out], `--steps ${steps}`, "5 steps already done");
    assert.ok(!existsSync(out));
  }
  assert.match(ok([...TRAIN, '--steps', '6', '--quiet', '--resume', five, '--out', path.join(TMP, 'six.safetensors')]),
    /^trained 1 steps in /m);

  // A TSV has no gold alignments: AER is n/a (null in --json), not 0. A built-in task still scores it.
  const tsv = path.join(TMP, 'pairs.tsv');
  writeFileSync(tsv, 'abc\tcba\nhello\tolleh\n');
  const evalArgs = ['eval', '--model', MODEL('reverse'), '--data', tsv];
  const text = ok(evalArgs);
  assert.match(text, /^AER\s+n\/a\b/m, text);
  assert.doesNotMatch(text, /gold links/);
  assert.equal(JSON.parse(ok([...evalArgs, '--json'])).aer, null);
  const task = JSON.parse(ok(['eval', '--model', MODEL('reverse'), '--task', 'reverse', '--n', '10', '--json']));
  assert.equal(typeof task.aer, 'number', 'the reverse task has gold alignments to score');

  // Unknown flags and stray arguments are errors that name them (they were ignored).
  const m = MODEL('reverse');
  const never = path.join(TMP, 'never-trained.safetensors');
  usage(['info', '--model', m, 'extra'], "'extra'");
  usage(['info', '--model', m, '--bogus', '3'], '--bogus');
  usage(['info', '--model', m, '--beam', '3'], '--beam');
  usage(['translate', '--model', m, '--bogus', '3', 'abc'], '--bogus');
  usage(['translate', '--model', m, 'abc', 'def'], "'def'");
  usage([...TRAIN, '--steps', '2', '--bogus', '3', '--out', never], '--bogus');
  usage([...TRAIN, '--steps', '2', '--out', never, 'extra'], "'extra'");
  usage(['eval', '--model', m, '--task', 'reverse', '--n', '5', '--bogus', '3'], '--bogus');
  usage(['eval', '--model', m, '--task', 'reverse', '--n', '5', 'extra'], "'extra'");
  assert.ok(!existsSync(never), 'a refused train wrote nothing');
});

test('train --threads outside [1, 256] is refused before training, naming the option', () => {
  for (const n of ['0', '10000', '-2', 'two']) {
    const out = path.join(TMP, `threads-${n}.safetensors`);
    usage([...TRAIN, '--steps', '2', '--threads', n, '--out', out], '--threads');
    assert.ok(!existsSync(out), `--threads ${n}: nothing written`);
  }
  // Two threads train and the same count repeats byte for byte.
  const a = path.join(TMP, 'threads-a.safetensors'), b = path.join(TMP, 'threads-b.safetensors');
  for (const out of [a, b]) ok([...TRAIN, '--steps', '3', '--batch', '5', '--threads', '2', '--quiet', '--out', out]);
  assert.ok(readFileSync(a).equals(readFileSync(b)), 'same seed and thread count, same bytes');
});

test('eval --threads shares the examples: the same report for 1 and 2 threads, and a bad count is refused', () => {
  const args = ['eval', '--model', MODEL('en-ko'), '--task', 'en-ko', '--n', '300', '--json'];
  const one = JSON.parse(ok([...args, '--threads', '1']));
  const two = JSON.parse(ok([...args, '--threads', '2']));
  assert.deepEqual(two, one);
  assert.equal(one.n, 300);
  for (const n of ['0', '10000']) usage([...args, '--threads', n], '--threads');
});
