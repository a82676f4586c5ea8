// The native command line (build/native/attnseq, or $ATTNSEQ_NATIVE_CLI) run as a user runs it:
// translate (text, --ids, --json against the npm package's translate(), beam too), info against
// model.config, a short train whose checkpoint loads everywhere, eval on a TSV whose figures are known
// by construction, and the error paths (exit code and message). Fails if the binary or dist/ is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, cliOk, runCli, requireNativeCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = NATIVE_CLI;
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const FIX = (n) => path.join(ROOT, 'tests/data/parity', `${n}.safetensors`);
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-native-cli-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

// The package's module needs dist/ (scripts/build.sh); say so instead of a bare import error.
const CORE = path.join(ROOT, 'dist/attnseq-core.mjs');
if (!existsSync(CORE)) throw new Error(`${CORE} is missing: run \`bash scripts/build.sh\` first`);
const { loadModel } = await import('../../wasm/attnseq.js');

// Native and wasm kernels differ in the last bits (about 5e-7 here, mostly the CLI's 6 printed digits);
// the PyTorch fixture is matched within 1e-5 by tests/cpp/test_parity.cpp.
const TOL = 2e-5;

const requireCli = requireNativeCli;
const run = runCli;
const ok = (args) => cliOk(args).out;
const json = (args) => JSON.parse(ok([...args, '--json']));

async function withModel(file, fn) {
  const m = await loadModel(file);
  try {
    return await fn(m);
  } finally {
    m.dispose();
  }
}

const rowsOf = (attention, rows, cols) =>
  Array.from({ length: rows }, (_, k) => Array.from(attention.subarray(k * cols, (k + 1) * cols)));
function assertRowsClose(got, want, what) {
  assert.equal(got.length, want.length, `${what}: row count`);
  got.forEach((row, k) => {
    assert.equal(row.length, want[k].length, `${what}[${k}]: column count`);
    row.forEach((v, t) => assert.ok(Math.abs(v - want[k][t]) <= TOL, `${what}[${k}][${t}]: ${v} vs ${want[k][t]}`));
  });
}

// One native `--json` hypothesis against one of the package's hypotheses (the --json schema is in
// README.md's "Command line" section: `tokens` are ids, `tgtTokens` their strings).
function assertSameHypothesis(n, j, what) {
  assert.deepEqual(n.tokens, j.tokens, `${what}: tokens (ids)`);
  assert.equal(n.text, j.text, `${what}: text`);
  assert.deepEqual(n.tgtTokens, j.tgtTokens, `${what}: tgtTokens`);
  assert.ok(Math.abs(n.score - j.score) <= TOL * Math.max(1, Math.abs(j.score)), `${what}: score ${n.score} vs ${j.score}`);
  assert.ok(Math.abs(n.logProb - j.logProb) <= TOL * Math.max(1, Math.abs(j.logProb)), `${what}: logProb ${n.logProb} vs ${j.logProb}`);
  assert.equal(n.finished, j.finished, `${what}: finished`);
  assertRowsClose(n.attention, rowsOf(j.attention, j.rows, j.cols), `${what}: attention`);
}
// The whole native `--json` translation against the package's translate() of the same input.
function assertSameTranslation(nat, js, what) {
  assert.equal(nat.text, js.text, `${what}: text`);
  assert.deepEqual(nat.tokens, js.tokens, `${what}: tokens (ids)`);
  assert.deepEqual(nat.tgtTokens, js.tgtTokens, `${what}: tgtTokens`);
  assert.deepEqual(nat.srcTokens, js.srcTokens, `${what}: srcTokens`);
  assert.equal(nat.rows, js.rows, `${what}: rows`);
  assert.equal(nat.cols, js.cols, `${what}: cols`);
  assert.ok(Math.abs(nat.score - js.score) <= TOL * Math.max(1, Math.abs(js.score)), `${what}: score ${nat.score} vs ${js.score}`);
  assertRowsClose(nat.attention, rowsOf(js.attention, js.rows, js.cols), `${what}: attention`);
  assert.equal(nat.hypotheses.length, js.hypotheses.length, `${what}: hypothesis count`);
  nat.hypotheses.forEach((h, i) => assertSameHypothesis(h, js.hypotheses[i], `${what}: hypothesis ${i}`));
  // The top-level fields are the best hypothesis.
  assert.deepEqual(nat.hypotheses[0].tokens, nat.tokens, `${what}: best hypothesis first`);
}

test('translate: the README sentence on en-ko, as text with its alignment', () => {
  const out = ok(['translate', '--model', MODEL('en-ko'), 'Jane went to the store']);
  const lines = out.split('\n');
  assert.equal(lines[0], '제인이 가게에 갔다');
  // models/README.md: 1.00 of the weight on "Jane" for 제인이 and on "store" for 가게에.
  assert.match(out, /^제인이\s*\|[^|]*\|\s*1\.00 on Jane$/m);
  assert.match(out, /^가게에\s*\|[^|]*\|\s*1\.00 on store$/m);
  assert.match(out, /^source: 0=Jane 1=went 2=to 3=the 4=store\s*$/m);
  // A vanilla model has no alignment to draw, and says so.
  const vanilla = ok(['translate', '--model', MODEL('en-ko-vanilla'), 'Jane went to the store']);
  assert.equal(vanilla.split('\n')[0], '제인이 가게에 갔다');
  assert.match(vanilla, /style none.*no alignment/);
  assert.doesNotMatch(vanilla, /\bon Jane\b/);
});

test('translate --ids on an ids-only checkpoint gives the PyTorch twin\'s greedy tokens and attention', async () => {
  const fx = JSON.parse(readFileSync(path.join(ROOT, 'tests/data/parity/tensors_only.json'), 'utf8'));
  const file = FIX('tensors_only');
  assert.ok(fx.cases.length >= 3);
  await withModel(file, (m) => {
    for (const [i, c] of fx.cases.entries()) {
      const args = ['translate', '--model', file, '--max-length', String(fx.max_len), '--ids', c.src.join(',')];
      const nat = json(args);
      assert.deepEqual(nat.hypotheses[0].tokens, c.tokens, `case ${i}: ids`);
      assert.deepEqual(nat.srcIds, c.src, `case ${i}: the source ids`);
      assert.equal(nat.srcTokens.length, c.src.length, `case ${i}: one column per source id`);
      assertRowsClose(nat.attention, c.attention, `case ${i}: attention`);
      // The text form prints the same translation as the package.
      const js = m.translate(c.src, { maxLength: fx.max_len });
      assert.deepEqual(js.tokens, c.tokens);
      assert.equal(ok(args).split('\n')[0], js.text, `case ${i}: text`);
    }
  });
});

test('translate --json matches the package\'s translate() field by field, greedy and beam', async () => {
  const cases = [
    [MODEL('en-ko'), 'Jane went to the store', [1, 3]],
    [MODEL('en-ko-bahdanau'), 'Jane went to the store', [1, 4]],
    [MODEL('reverse'), 'abcdefghijklmnopqrst', [1, 2]],
    [FIX('lstm_bi_2layer_bridge_luong_additive'), 'w5 w6 w7 w8 w4', [1, 3]],
  ];
  for (const [file, src, beams] of cases) {
    await withModel(file, (m) => {
      for (const beam of beams) {
        const what = `${path.basename(file)} beam ${beam}`;
        const nat = json(['translate', '--model', file, '--beam', String(beam), src]);
        const js = m.translate(src, { beam });
        assert.equal(js.hypotheses.length, beam, `${what}: the package returns the whole beam`);
        assertSameTranslation(nat, js, what);
      }
    });
  }
  // An ids-only model with --ids, and a beam.
  const file = FIX('tensors_only');
  await withModel(file, (m) => {
    const nat = json(['translate', '--model', file, '--beam', '3', '--ids', '11,6,9,4,11']);
    assertSameTranslation(nat, m.translate([11, 6, 9, 4, 11], { beam: 3 }), 'tensors_only beam 3');
  });
});

// `info` prints: "cell C, style S, score S, input_feeding y/n, bidirectional y/n, bridge y/n, layers L",
// "vocab V -> W, embedding E/E, hidden H/H, attn_dim A, tokenizer T", one "key: value" line per
// metadata entry, "parameters: N", "kernels: xsimd ARCH".
function parseInfo(out) {
  const lines = out.trimEnd().split('\n');
  const a = lines[0].match(/^cell (\w+), style (\w+), score (\w+), input_feeding (yes|no), bidirectional (yes|no), bridge (yes|no), layers (\d+)$/);
  assert.ok(a, `info line 1: ${lines[0]}`);
  const b = lines[1].match(/^vocab (\d+) -> (\d+), embedding (\d+)\/(\d+), hidden (\d+)\/(\d+), attn_dim (\d+), tokenizer (\w+)$/);
  assert.ok(b, `info line 2: ${lines[1]}`);
  const k = lines.at(-1).match(/^kernels: xsimd (sse2|fma3\+avx2|avx512f)$/);
  assert.ok(k, `info last line names the instruction set in use: ${lines.at(-1)}`);
  const p = lines.at(-2).match(/^parameters: (\d+)$/);
  assert.ok(p, `info line before last: ${lines.at(-2)}`);
  const metadata = {};
  for (const l of lines.slice(2, -2)) {
    const m = l.match(/^([^:]+): ?(.*)$/);
    assert.ok(m, `info metadata line: ${l}`);
    metadata[m[1]] = m[2];
  }
  const yes = (s) => s === 'yes';
  return {
    cell: a[1], style: a[2], score: a[3], inputFeeding: yes(a[4]), bidirectional: yes(a[5]), bridge: yes(a[6]),
    layers: +a[7], srcVocabSize: +b[1], tgtVocabSize: +b[2], srcEmbedding: +b[3], tgtEmbedding: +b[4],
    encoderHidden: +b[5], hidden: +b[6], attentionSize: +b[7], tokenizer: b[8], metadata, parameters: +p[1],
    kernels: k[1],
  };
}

test('info prints the configuration the package reports', async () => {
  const files = [MODEL('en-ko-additive'), MODEL('reverse'), MODEL('en-ko-vanilla'),
    FIX('lstm_bi_2layer_bridge_luong_additive'), FIX('tensors_only')];
  const seen = new Set();
  for (const file of files) {
    const got = parseInfo(ok(['info', '--model', file]));
    await withModel(file, (m) => {
      const { kernels, ...config } = got;  // kernels: the native build's instruction set, not the model's
      for (const [k, v] of Object.entries(config)) assert.deepEqual(v, m.config[k], `${path.basename(file)}: ${k}`);
      seen.add(`${got.cell}/${got.style}/${got.tokenizer}/${got.bidirectional}/${got.bridge}`);
    });
  }
  assert.equal(seen.size, files.length, 'the models cover different configurations');
});

test('train: a few steps write a checkpoint that loads in the package and in translate; --resume continues it', async () => {
  const out = path.join(TMP, 'copy.safetensors');
  const args = ['train', '--task', 'copy', '--hidden', '8', '--embedding', '8', '--steps', '5', '--seed', '3', '--out', out];
  const stdout = ok(args);
  const last = stdout.trimEnd().split('\n').at(-1);
  const m = last.match(/^trained (\d+) steps in (\d+(?:\.\d+)?) s \((\d+) target tokens\/s\)/);
  assert.ok(m, `last line: ${last}`);
  assert.equal(+m[1], 5);
  assert.ok(+m[3] > 0, 'a positive throughput');
  assert.ok(existsSync(`${out}.trainer`), 'the optimiser state for --resume is written');

  const parsed = parseInfo(ok(['info', '--model', out]));
  await withModel(out, (model) => {
    const c = model.config;
    assert.equal(c.hidden, 8);
    assert.equal(c.embedding, 8);
    assert.equal(c.task, 'copy');
    assert.equal(c.tokenizer, 'char');
    // docs/tasks.md: copy is over the 20 letters a..t.
    for (const ch of 'abcdefghijklmnopqrst') assert.ok(model.srcVocab.includes(ch), `source vocabulary has ${ch}`);
    assert.equal(parsed.parameters, c.parameters);
    const nat = json(['translate', '--model', out, 'abcde']);
    assertSameTranslation(nat, model.translate('abcde'), 'trained copy model');
  });

  // Same seed, same bytes; 5 steps then --resume to 8 equals 8 steps in one go.
  const again = path.join(TMP, 'copy-again.safetensors');
  ok([...args.slice(0, -1), again]);
  assert.ok(readFileSync(again).equals(readFileSync(out)), 'training is deterministic for a seed');
  const resumed = path.join(TMP, 'copy-resumed.safetensors');
  const r = ok(['train', '--task', 'copy', '--hidden', '8', '--embedding', '8', '--steps', '8', '--seed', '3', '--resume', out, '--out', resumed]);
  assert.match(r.trimEnd().split('\n').at(-1), /^trained 3 steps in /);
  const straight = path.join(TMP, 'copy-8.safetensors');
  ok(['train', '--task', 'copy', '--hidden', '8', '--embedding', '8', '--steps', '8', '--seed', '3', '--out', straight]);
  assert.ok(readFileSync(resumed).equals(readFileSync(straight)), '--resume continues the same run');
});

test('eval on a TSV reports the exact match and token accuracy known by construction', async () => {
  // Sources over a..t: five of length 6 (source-length bucket 1-10) whose targets are reverse's own
  // greedy outputs, five of length 14 (bucket 11-20) whose targets drop its last output token.
  const word = (i, n) => Array.from({ length: n }, (_, j) => String.fromCharCode(97 + ((i * 7 + j * 3 + (j * j) % 5) % 20))).join('');
  const right = [], wrong = [];
  let lenRight = 0, lenWrong = 0;
  await withModel(MODEL('reverse'), (m) => {
    const eos = m.config.eos;
    for (let i = 0; i < 5; ++i) {
      for (const [n, list] of [[6, right], [14, wrong]]) {
        const src = word(i, n);
        const out = m.translate(src);
        // Teacher forcing on the model's own finished output picks every token, EOS included.
        assert.equal(out.tokens.at(-1), eos, `${src}: the output ends with EOS`);
        const body = out.tgtTokens.slice(0, -1);
        list.push({ src, body });
      }
    }
    lenRight = right[0].body.length;
    lenWrong = wrong[0].body.length;
    // Equal output lengths keep the expected token accuracy independent of which lines eval samples.
    for (const e of right) assert.equal(e.body.length, lenRight, `${e.src}: output length`);
    for (const e of wrong) assert.equal(e.body.length, lenWrong, `${e.src}: output length`);
    assert.ok(lenRight > 0 && lenWrong >= 2);
  });
  const tsv = (lines) => {
    const file = path.join(TMP, `eval-${Math.random().toString(36).slice(2)}.tsv`);
    writeFileSync(file, lines.map(([s, t]) => `${s}\t${t}\n`).join(''));
    return file;
  };
  const rightLines = right.map((e) => [e.src, e.body.join('')]);
  // A target one token short: the first L-1 teacher-forced tokens are right, the final EOS is not
  // (the model wants its last token there), so L-1 of L per line, and never an exact match.
  const wrongLines = wrong.map((e) => [e.src, e.body.slice(0, -1).join('')]);
  const evalJson = (file) => json(['eval', '--model', MODEL('reverse'), '--data', file]);
  const near = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-6, `${what}: ${got} vs ${want}`);

  // Every line once: 5 lines, 5 examples.
  const allRight = evalJson(tsv(rightLines));
  assert.equal(allRight.n, 5);
  near(allRight.exact_match, 1, 'all right: exact match');
  near(allRight.token_accuracy, 1, 'all right: token accuracy');

  const allWrong = evalJson(tsv(wrongLines));
  assert.equal(allWrong.n, 5);
  near(allWrong.exact_match, 0, 'all wrong: exact match');
  near(allWrong.token_accuracy, (lenWrong - 1) / lenWrong, 'all wrong: token accuracy');

  // Mixed: five of each, in their source-length buckets (the two kinds sit in different buckets).
  const mixed = evalJson(tsv([...rightLines, ...wrongLines]));
  assert.equal(mixed.n, 10);
  const b1 = mixed.buckets.find((b) => b.lo === 1), b2 = mixed.buckets.find((b) => b.lo === 11);
  assert.ok(b1 && b2, `buckets: ${JSON.stringify(mixed.buckets)}`);
  assert.equal(mixed.buckets.length, 2);
  assert.equal(b1.n, 5);
  assert.equal(b2.n, 5);
  near(b1.exact_match, 1, 'bucket 1-10 exact match');
  near(b2.exact_match, 0, 'bucket 11-20 exact match');
  near(mixed.exact_match, b1.n / 10, 'mixed: exact match');
  const tokens = b1.n * (lenRight + 1) + b2.n * lenWrong;
  near(mixed.token_accuracy, (b1.n * (lenRight + 1) + b2.n * (lenWrong - 1)) / tokens, 'mixed: token accuracy');

  // The text form reports the same figures.
  const text = ok(['eval', '--model', MODEL('reverse'), '--data', tsv([...rightLines, ...wrongLines])]);
  assert.match(text, new RegExp(`^exact match\\s+${mixed.exact_match.toFixed(4)} \\(${b1.n}/10\\)$`, 'm'));
  assert.match(text, new RegExp(`^token accuracy\\s+${mixed.token_accuracy.toFixed(4)} `, 'm'));
});

test('errors exit non-zero with a message naming the problem (2: a usage error, 1: any other)', () => {
  // A truncated checkpoint, and one whose tensor shape disagrees with its data.
  const enko = readFileSync(MODEL('en-ko'));
  const truncated = path.join(TMP, 'truncated.safetensors');
  writeFileSync(truncated, enko.subarray(0, 300));
  const n = Number(enko.readBigUInt64LE(0));
  const header = JSON.parse(enko.subarray(8, 8 + n).toString('utf8'));
  const first = Object.keys(header).find((k) => k !== '__metadata__');
  header[first].shape[0] += 1;
  const hb = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(hb.length));
  const reshaped = path.join(TMP, 'reshaped.safetensors');
  writeFileSync(reshaped, Buffer.concat([len, hb, enko.subarray(8 + n)]));
  const missing = path.join(TMP, 'no-such-model.safetensors');
  const enkoFile = MODEL('en-ko');

  const cases = [
    [['translate', '--model', missing, 'Jane'], 1, `cannot open '${missing}'`],
    [['info', '--model', missing], 1, `cannot open '${missing}'`],
    [['eval', '--model', missing, '--task', 'copy'], 1, `cannot open '${missing}'`],
    [['translate', '--model', truncated, 'Jane'], 1, `${truncated}: safetensors: header length`],
    [['info', '--model', reshaped], 1, `tensor '${first}' has shape`],
    [['frobnicate'], 2, "unknown command 'frobnicate'"],
    [['translate', '--model', enkoFile, '--beam', 'abc', 'Jane'], 2, "--beam expects an integer, got 'abc'"],
    [['translate', '--model', enkoFile, '--max-length', '1.5', 'Jane'], 2, "--max-length expects an integer, got '1.5'"],
    [['translate', '--model', enkoFile, '--beam', '65', 'Jane'], 2, "--beam expects an integer in [1, 64], got '65'"],
    [['translate', '--model', FIX('tensors_only'), '--ids', '4,99'], 1, 'id 99, outside the source vocabulary'],
    [['train', '--task', 'copy', '--steps', '0', '--out', path.join(TMP, 'never.safetensors')], 2, "--steps expects an integer in [1, 10000000], got '0'"],
    [['translate', 'Jane'], 2, '--model FILE is required'],
    [['info'], 2, '--model FILE is required'],
    [['translate', '--model', enkoFile], 2, 'no source: give TEXT or --ids'],
    [['train', '--task', 'copy'], 2, '--out FILE.safetensors is required'],
    [['eval', '--model', enkoFile], 2, 'give exactly one of --task NAME, --data FILE.tsv or --pron FILE'],
    [['translate', '--model', enkoFile, '--beam'], 2, '--beam needs a value'],
  ];
  for (const [args, code, message] of cases) {
    const r = run(args);
    const what = `attnseq ${args.join(' ')}`;
    assert.equal(r.code, code, `${what}: exit ${r.code}; stderr: ${r.err}`);
    assert.ok(r.err.includes(message), `${what}: stderr should name the problem (${message}); got: ${r.err}`);
    assert.equal(r.out, '', `${what}: nothing on stdout`);
  }
  assert.ok(!existsSync(path.join(TMP, 'never.safetensors')));
  // The usage goes with an unknown command, and with no command at all.
  assert.match(run(['frobnicate']).err, /usage: attnseq translate/);
  const none = run([]);
  assert.equal(none.code, 2);
  assert.match(none.err, /usage: attnseq translate/);
});

test('ATTNSEQ_ARCH picks a lower instruction set, named by info, with the same translation', () => {
  requireCli();
  const file = MODEL('en-ko');
  const best = parseInfo(ok(['info', '--model', file])).kernels;
  const run = (arch, args) => {
    const r = spawnSync(CLI, args, { encoding: 'utf8', env: { ...process.env, ATTNSEQ_ARCH: arch } });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  assert.equal(parseInfo(run('sse2', ['info', '--model', file])).kernels, 'sse2');
  const want = JSON.parse(run(best, ['translate', '--model', file, '--json', 'Jane went to the store']));
  const sse2 = JSON.parse(run('sse2', ['translate', '--model', file, '--json', 'Jane went to the store']));
  assert.equal(sse2.text, want.text);
  assert.deepEqual(sse2.tokens, want.tokens);
  // An arch this binary cannot run is reported, and the best one is used.
  const r = spawnSync(CLI, ['info', '--model', file], { encoding: 'utf8', env: { ...process.env, ATTNSEQ_ARCH: 'neon' } });
  assert.equal(r.status, 0);
  assert.match(r.stderr, /ATTNSEQ_ARCH=neon is not an instruction set/);
  assert.equal(parseInfo(r.stdout).kernels, best);
});

test('ATTNSEQ_INT8=7bit multiplies an int8 model as the browser\'s relaxed path does; another value is refused', () => {
  requireCli();
  const file = MODEL('en-fr');  // int8
  const run = (v) => {
    const r = spawnSync(CLI, ['translate', '--model', file, '--json', 'A red car is parked on the street.'], { encoding: 'utf8', env: { ...process.env, ATTNSEQ_INT8: v } });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const plain = run('16bit'), seven = run('7bit');
  assert.deepEqual(run(''), plain);  // unset is the native product
  assert.equal(seven.text, plain.text);
  assert.notEqual(seven.score, plain.score, 'another product: the score moves a little');
  assert.ok(Math.abs(seven.score - plain.score) < 0.01, `${seven.score} vs ${plain.score}`);
  const r = spawnSync(CLI, ['info', '--model', file], { encoding: 'utf8', env: { ...process.env, ATTNSEQ_INT8: '8bit' } });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /ATTNSEQ_INT8 is 7bit or 16bit, not '8bit'/);
});
