// `translate --json` has one schema in both command lines (README.md, "Command line"): the native
// build/native/attnseq (or $ATTNSEQ_NATIVE_CLI) and the npm package's bin/attnseq.js print the same
// keys in the same order with the same values (weights within the native/wasm rounding) on the same
// model and input, for attention and vanilla models, greedy and beam. Fails if either is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NATIVE = NATIVE_CLI;
const JS_CLI = path.join(ROOT, 'bin/attnseq.js');
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const FIX = (n) => path.join(ROOT, 'tests/data/parity', `${n}.safetensors`);
// Native and wasm kernels differ in the last bits (tests/js/native-cli.test.mjs uses the same bound).
const TOL = 2e-5;

function runBoth(args) {
  requireNativeCli();
  const core = path.join(ROOT, 'dist/attnseq-core.mjs');
  if (!existsSync(core)) assert.fail(`${core} is missing: run \`bash scripts/build.sh\` first`);
  const out = {};
  for (const [name, cmd, pre] of [['native', NATIVE, []], ['js', process.execPath, [JS_CLI]]]) {
    const r = spawnSync(cmd, [...pre, 'translate', ...args, '--json'], { encoding: 'utf8', timeout: 60000, env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(r.error, undefined, String(r.error));
    assert.equal(r.status, 0, `${name} translate ${args.join(' ')} --json: exit ${r.status}; stderr: ${r.stderr}`);
    const lines = r.stdout.split('\n');
    assert.equal(lines.length, 2, `${name}: one JSON line per source`);
    assert.equal(lines[1], '');
    out[name] = JSON.parse(lines[0]);
  }
  return out;
}

const isFloat = (x) => typeof x === 'number' && !Number.isInteger(x);
// Same keys (same order), same array lengths, equal strings/integers/booleans/null; floats close.
function assertSame(nat, js, where, scale = 1) {
  if (Array.isArray(js)) {
    assert.ok(Array.isArray(nat), `${where}: native ${JSON.stringify(nat)?.slice(0, 80)} should be an array`);
    assert.equal(nat.length, js.length, `${where}: length`);
    js.forEach((v, i) => assertSame(nat[i], v, `${where}[${i}]`, scale));
  } else if (js !== null && typeof js === 'object') {
    assert.ok(nat !== null && typeof nat === 'object' && !Array.isArray(nat), `${where}: native should be an object`);
    assert.deepEqual(Object.keys(nat), Object.keys(js), `${where}: keys`);
    for (const k of Object.keys(js)) assertSame(nat[k], js[k], `${where}.${k}`, k === 'score' || k === 'logProb' ? Math.max(1, Math.abs(js[k])) : scale);
  } else if (isFloat(js) || isFloat(nat)) {
    assert.equal(typeof nat, 'number', `${where}: native ${nat} should be a number`);
    assert.ok(Math.abs(nat - js) <= TOL * scale, `${where}: native ${nat} vs js ${js}`);
  } else {
    assert.equal(nat, js, `${where}`);
  }
}

// What the schema promises, checked on one side (the other is equal to it).
function assertSchema(j, hasAttention, what) {
  const ints = (a) => Array.isArray(a) && a.every(Number.isInteger);
  const strs = (a) => Array.isArray(a) && a.every((s) => typeof s === 'string');
  assert.ok(ints(j.tokens) && ints(j.srcIds), `${what}: tokens and srcIds are ids`);
  assert.ok(strs(j.tgtTokens) && strs(j.srcTokens), `${what}: tgtTokens and srcTokens are strings`);
  assert.equal(j.rows, j.tokens.length, `${what}: rows`);
  assert.equal(j.tgtTokens.length, j.tokens.length, `${what}: one string per target id`);
  assert.equal(j.cols, j.srcIds.length, `${what}: cols`);
  assert.equal(j.srcTokens.length, j.srcIds.length, `${what}: one string per source id`);
  assert.equal(typeof j.score, 'number');
  assert.ok(j.hypotheses.length >= 1);
  // The top level is the best hypothesis.
  for (const k of ['text', 'tokens', 'tgtTokens', 'score', 'attention']) assert.deepEqual(j[k], j.hypotheses[0][k], `${what}: ${k} of the best`);
  for (const [i, h] of j.hypotheses.entries()) {
    assert.ok(ints(h.tokens) && strs(h.tgtTokens) && h.tgtTokens.length === h.tokens.length, `${what}: hypothesis ${i} tokens`);
    assert.equal(typeof h.finished, 'boolean');
    assert.equal(typeof h.logProb, 'number');
    if (!hasAttention) {
      assert.equal(h.attention, null, `${what}: hypothesis ${i}: a vanilla model has no attention`);
      continue;
    }
    assert.equal(h.attention.length, h.tokens.length, `${what}: hypothesis ${i}: one row per token`);
    for (const row of h.attention) {
      assert.equal(row.length, j.cols);
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, `${what}: hypothesis ${i}: a row sums to 1`);
    }
  }
  if (!hasAttention) assert.equal(j.attention, null, `${what}: a vanilla model has no attention`);
}

const CASES = [
  ['en-ko (luong dot, word)', MODEL('en-ko'), ['Jane went to the store'], true],
  ['en-ko-vanilla (style none)', MODEL('en-ko-vanilla'), ['Jane went to the store'], false],
  ['reverse (char)', MODEL('reverse'), ['abcdefghij'], true],
  ['reverse-vanilla (style none, char)', MODEL('reverse-vanilla'), ['abcdefghij'], false],
  ['an ids-only model with --ids', FIX('tensors_only'), ['--ids', '11,6,9,4,11'], true],
];

for (const [name, file, src, hasAttention] of CASES) {
  test(`translate --json is the same from both command lines: ${name}, beam 1 and 3`, () => {
    for (const beam of ['1', '3']) {
      const what = `${name} beam ${beam}`;
      const { native, js } = runBoth(['--model', file, '--beam', beam, ...src]);
      assertSchema(js, hasAttention, `${what} (js)`);
      assertSame(native, js, what);
      assert.equal(native.hypotheses.length, Number(beam), `${what}: every hypothesis of the beam`);
    }
  });
}
