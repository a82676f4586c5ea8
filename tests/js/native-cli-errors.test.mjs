// The native command line's (build/native/attnseq, or $ATTNSEQ_NATIVE_CLI) refusals: numbers out of
// range instead of cut to 32 bits. Fails if the binary is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = process.env.ATTNSEQ_NATIVE_CLI ? path.resolve(process.env.ATTNSEQ_NATIVE_CLI) : path.join(ROOT, 'build/native/attnseq');
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const IDS_MODEL = path.join(ROOT, 'tests/data/parity/tensors_only.safetensors');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-errors-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

function requireCli() {
  try {
    accessSync(CLI, constants.X_OK);
  } catch {
    assert.fail(`the native CLI ${CLI} is missing or not executable: build it with ` +
      '`cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native --target attnseq` ' +
      '(or point ATTNSEQ_NATIVE_CLI at it)');
  }
}
// Runs the CLI; with `fileLimitKB`, under `ulimit -f` (bash counts it in KiB).
function run(args, { fileLimitKB } = {}) {
  requireCli();
  const r = fileLimitKB === undefined
    ? spawnSync(CLI, args, { encoding: 'utf8', timeout: 60000 })
    : spawnSync('bash', ['-c', `ulimit -f ${fileLimitKB}; exec "$0" "$@"`, CLI, ...args], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.error, undefined, String(r.error));
  const what = `attnseq ${args.join(' ')}`;
  assert.equal(r.signal, null, `${what}: killed by ${r.signal}; stderr: ${r.stderr}`);
  return { code: r.status, out: r.stdout, err: r.stderr, what };
}
function ok(args) {
  const r = run(args);
  assert.equal(r.code, 0, `${r.what}: exit ${r.code}; stderr: ${r.err}`);
  return r.out;
}
// A refusal: exit 1, every expected fragment on stderr, nothing on stdout.
function refused(args, ...fragments) {
  const r = run(args);
  assert.equal(r.code, 1, `${r.what}: should be refused, exited ${r.code}; stdout: ${r.out.slice(0, 300)}; stderr: ${r.err}`);
  for (const f of fragments) assert.ok(r.err.includes(f), `${r.what}: stderr should contain ${JSON.stringify(f)}; got: ${r.err}`);
  assert.equal(r.out, '', `${r.what}: nothing on stdout`);
  return r;
}
// Folder entries other than `keep` (temporary files a failed write must not leave behind).
const strays = (dir, keep = []) => readdirSync(dir).filter((f) => !keep.includes(f));
// A small, quick training run (the copy task, tiny sizes).
const TRAIN = ['train', '--task', 'copy', '--hidden', '8', '--embedding', '8', '--seed', '3'];

test('18: numbers beyond 32 bits and negative seeds are refused, naming the flag and the value', () => {
  const reverse = MODEL('reverse');
  // Each of these used to run: 2^32 + 1 became beam 1 or max-length 1, id 2^32 + 5 became id 5.
  refused(['translate', '--model', reverse, '--beam', '4294967297', 'abc'], '--beam', "'4294967297'");
  refused(['translate', '--model', reverse, '--max-length', '4294967297', 'abc'], '--max-length', "'4294967297'");
  refused(['translate', '--model', reverse, '--beam', '18446744073709551617', 'abc'], '--beam', "'18446744073709551617'");
  refused(['translate', '--model', IDS_MODEL, '--ids', '4,4294967301'], '--ids', "'4294967301'");
  refused(['translate', '--model', IDS_MODEL, '--ids', '4,5', '--prefix', '4294967302'], '--prefix', "'4294967302'");
  // The JS API refuses a negative seed (and one beyond 2^53 - 1); so does the native CLI now.
  refused(['translate', '--model', reverse, '--temperature', '1', '--seed', '-1', 'abc'], '--seed', "'-1'");
  refused(['translate', '--model', reverse, '--temperature', '1', '--seed', '9007199254740992', 'abc'], '--seed', "'9007199254740992'");
  // Numbers that do not fit a float, or are not finite, are not passed on as infinities.
  refused(['translate', '--model', reverse, '--length-penalty', '1e39', 'abc'], '--length-penalty', "'1e39'");
  refused([...TRAIN, '--steps', '2', '--clip', 'inf', '--out', path.join(TMP, 'never.safetensors')], '--clip', "'inf'");
  refused(['eval', '--model', reverse, '--task', 'reverse', '--beam', '4294967297'], '--beam', "'4294967297'");
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
