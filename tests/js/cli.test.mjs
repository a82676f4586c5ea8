// The `attnseq` command line (bin/attnseq.js) run as a user runs it: a child process whose text and
// JSON output must agree with the JS API's translate(), whose errors are `attnseq: CODE: message`
// with exit 1 (usage: exit 2), which colours only a terminal, and whose heatmap columns stay aligned
// under wide (Hangul) labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../wasm/attnseq.js';

const BIN = fileURLToPath(new URL('../../bin/attnseq.js', import.meta.url));
const FIX = (n) => fileURLToPath(new URL(`../data/parity/${n}.safetensors`, import.meta.url));
const GEN = FIX('gru_luong_general');
const SRC = 'w5 w6 w7 w8 w4';
const ESC = /\x1b\[/;
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-cli-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

// Runs the CLI with piped stdio (so stdout is not a TTY) and a clean colour environment.
const cleanEnv = (env) => {
  const base = { ...process.env };
  delete base.NO_COLOR; delete base.FORCE_COLOR; delete base.COLUMNS;
  return { ...base, ...env };
};
function cliAsync(args, { env = {}, input = '' } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), timeout: 30000 });
    let out = '', err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => (signal ? reject(new Error(`killed by ${signal}`)) : resolve({ code, out, err })));
    child.stdin.end(input);
  });
}
// The same, synchronously (most checks read better in sequence).
function cli(args, { env = {}, input = '' } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', env: cleanEnv(env), timeout: 30000 });
  assert.equal(r.error, undefined, String(r.error));
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function ok(args, opts) {
  const r = cli(args, opts);
  assert.equal(r.code, 0, `exit ${r.code}; stderr: ${r.err}`);
  assert.equal(r.err, '');
  return r.out;
}

const api = await loadModel(GEN);
process.on('exit', () => api.dispose());

function rows(attention, n, cols) {
  return Array.from({ length: n }, (_, k) => Array.from(attention.subarray(k * cols, (k + 1) * cols)));
}
function assertClose(a, b, what) {
  assert.equal(a.length, b.length, what);
  a.forEach((row, k) => row.forEach((v, t) => assert.ok(Math.abs(v - b[k][t]) < 1e-6, `${what}[${k}][${t}]: ${v} vs ${b[k][t]}`)));
}

// A copy of a parity checkpoint with other vocabularies (same shapes): Hangul, long tokens.
function withVocab(name, src, tgt) {
  const b = readFileSync(GEN);
  const n = Number(b.readBigUInt64LE(0));
  const h = JSON.parse(b.subarray(8, 8 + n).toString('utf8'));
  if (src) h.__metadata__.src_vocab = JSON.stringify(['<pad>', '<s>', '</s>', '<unk>', ...src]);
  if (tgt) h.__metadata__.tgt_vocab = JSON.stringify(['<pad>', '<s>', '</s>', '<unk>', ...tgt]);
  const hb = Buffer.from(JSON.stringify(h), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(hb.length));
  const file = path.join(TMP, `${name}.safetensors`);
  writeFileSync(file, Buffer.concat([len, hb, b.subarray(8 + n)]));
  return file;
}

// Display width as a terminal draws it (enough for the test data: Hangul is wide, the rest narrow).
const width = (s) => [...s].reduce((w, ch) => w + (/[\u1100-\u115f\uac00-\ud7a3\u3040-\u9fff\uff00-\uff60]/u.test(ch) ? 2 : 1), 0);
// The display column where each match of `re` starts in `line`.
function columnsOf(line, re) {
  const out = [];
  for (const m of line.matchAll(re)) out.push(width(line.slice(0, m.index)));
  return out;
}

test('translate TEXT prints the API translation first, then an alignment heatmap', () => {
  const want = api.translate(SRC);
  const out = ok(['translate', '--model', GEN, SRC]);
  const lines = out.split('\n');
  assert.equal(lines[0], want.text);
  assert.match(out, /alignment \(rows: target tokens, columns: source tokens\)/);
  const header = lines.find((l) => /^\s+w5\s+w6\s+w7\s+w8\s+w4$/.test(l));
  assert.ok(header, out);
  // One heatmap row per target token, labelled by it, with one 2-digit weight per source token.
  const body = lines.slice(lines.indexOf(header) + 1, lines.indexOf(header) + 1 + want.rows);
  body.forEach((l, k) => {
    assert.equal(l.trim().split(/\s+/)[0], want.tgtTokens[k]);
    const w = l.match(/1\.0|\.\d\d/g).map(Number);
    assert.equal(w.length, want.cols, l);
    w.forEach((v, t) => assert.ok(Math.abs(v - want.attention[k * want.cols + t]) <= 0.0051, `${l}: ${v}`));
  });
  assert.match(lines[lines.indexOf(header) + 1 + want.rows], /weights:.*░.*▒.*▓.*█/);
  // Several words as separate arguments are joined, and `-- TEXT` is text even if it starts with '-'.
  assert.equal(ok(['translate', '-m', GEN, ...SRC.split(' ')]).split('\n')[0], want.text);
  assert.equal(ok(['translate', '-m', GEN, '-q', '--', SRC]), want.text + '\n');
});

test('--json equals the API translate(): text, tokens, source/target tokens, attention rows, score', () => {
  const want = api.translate(SRC);
  const got = JSON.parse(ok(['translate', '--model', GEN, '--json', SRC]));
  assert.equal(got.text, want.text);
  assert.deepEqual(got.tokens, want.tokens);
  assert.deepEqual(got.srcTokens, want.srcTokens);
  assert.deepEqual(got.tgtTokens, want.tgtTokens);
  assert.ok(Math.abs(got.score - want.score) < 1e-6);
  assertClose(got.attention, rows(want.attention, want.rows, want.cols), 'attention');
  got.attention.forEach((r) => assert.ok(Math.abs(r.reduce((a, b) => a + b, 0) - 1) < 1e-5));
  assert.equal(got.hypotheses.length, 1);
  assert.deepEqual(got.hypotheses[0].tokens, want.tokens);
});

test('--beam 3 --json has the 3 hypotheses of the API, each with its own attention', () => {
  const opts = { beam: 3, maxLength: 8, lengthPenalty: 0.5 };
  const want = api.translate(SRC, opts);
  const got = JSON.parse(ok(['translate', '-m', GEN, '--beam', '3', '--max-length', '8', '--length-penalty', '0.5', '--json', SRC]));
  assert.equal(got.hypotheses.length, 3);
  got.hypotheses.forEach((h, i) => {
    const w = want.hypotheses[i];
    assert.equal(h.text, w.text);
    assert.deepEqual(h.tokens, w.tokens);
    assert.equal(h.finished, w.finished);
    assert.ok(Math.abs(h.score - w.score) < 1e-6);
    assertClose(h.attention, rows(w.attention, w.tokens.length, want.cols), `hypothesis ${i}`);
  });
  assert.deepEqual(got.tokens, got.hypotheses[0].tokens);
  // Text mode lists every hypothesis with its score, best first.
  const out = ok(['translate', '-m', GEN, '--beam=3', '--max-length=8', '--length-penalty=0.5', SRC]);
  assert.match(out, /beam 3: 3 hypotheses/);
  want.hypotheses.forEach((h, i) => assert.ok(out.includes(`${i + 1}  ${h.score.toFixed(4)}  ${h.text}`), out));
  // --num-hypotheses keeps fewer.
  assert.equal(JSON.parse(ok(['translate', '-m', GEN, '-b', '3', '-n', '1', '--json', SRC])).hypotheses.length, 1);
});

test('sampling, prefix and replace-unknowns options reach the API unchanged', () => {
  const s = { temperature: 0.9, seed: 7, maxLength: 6 };
  const a = JSON.parse(ok(['translate', '-m', GEN, '--temperature', '0.9', '--seed', '7', '--max-length', '6', '--json', SRC]));
  assert.deepEqual(a.tokens, api.translate(SRC, s).tokens);
  const p = JSON.parse(ok(['translate', '-m', GEN, '--prefix', 'w7 w8', '--json', SRC]));
  assert.deepEqual(p.tokens, api.translate(SRC, { prefix: 'w7 w8' }).tokens);
  assert.deepEqual(p.tokens.slice(0, 2), [7, 8]);
  const u = JSON.parse(ok(['translate', '-m', GEN, '--replace-unknowns', '--json', SRC]));
  assert.equal(u.text, api.translate(SRC, { replaceUnknowns: true }).text);
});

test('an ids-only model takes --ids (or "4 5 6" as TEXT) and labels tokens #id', async () => {
  const file = FIX('tensors_only');
  const m = await loadModel(file);
  const want = m.translate([4, 5, 6]);
  m.dispose();
  const got = JSON.parse(ok(['translate', '--model', file, '--ids', '4,5,6', '--json']));
  assert.deepEqual(got.tokens, want.tokens);
  assert.deepEqual(got.srcTokens, ['#4', '#5', '#6']);
  assertClose(got.attention, rows(want.attention, want.rows, want.cols), 'attention');
  assert.deepEqual(JSON.parse(ok(['translate', '-m', file, '--json', '4 5 6'])).tokens, want.tokens);
  const text = ok(['translate', '-m', file, '--ids', '4,5,6']);
  assert.equal(text.split('\n')[0], want.text);
  assert.match(text, /^\s+#4\s+#5\s+#6$/m);
  // A prefix for an ids model is ids too.
  assert.deepEqual(JSON.parse(ok(['translate', '-m', file, '--ids', '4,5,6', '--prefix', '7,8', '--json'])).tokens.slice(0, 2), [7, 8]);
});

test("style 'none' says there is no attention instead of drawing zeros", () => {
  const file = FIX('gru_none');
  const out = ok(['translate', '-m', file, 'w5 w6']);
  assert.match(out, /no alignment: this model's style is 'none'/);
  assert.doesNotMatch(out, /weights:/);
  const j = JSON.parse(ok(['translate', '-m', file, '--json', 'w5 w6']));
  assert.equal(j.attention, null);
  assert.equal(j.hypotheses[0].attention, null);
});

test('errors: CODE on stderr and exit 1; usage errors exit 2 with the usage text; --help exits 0', async () => {
  let r = cli(['translate', '--model', path.join(TMP, 'missing.safetensors'), 'w5']);
  assert.equal(r.code, 1);
  assert.match(r.err, /^attnseq: LOAD_FAILED: .*missing\.safetensors/);
  assert.equal(r.out, '');

  const corrupt = path.join(TMP, 'corrupt.safetensors');
  writeFileSync(corrupt, readFileSync(GEN).subarray(0, 3000));   // header intact, data cut short
  r = cli(['translate', '--model', corrupt, 'w5']);
  assert.equal(r.code, 1);
  assert.match(r.err, /^attnseq: BAD_CHECKPOINT: /);
  r = cli(['info', '--model', corrupt]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^attnseq: BAD_CHECKPOINT: /);

  const engineErrors = [
    [['translate', '-m', GEN, '--beam', '2', '--temperature', '1', 'w5'], 'BAD_INPUT'],
    [['translate', '-m', GEN, '--ids', '4,99'], 'BAD_INPUT'],
    [['translate', '-m', FIX('tensors_only'), 'hello'], 'BAD_INPUT'],
  ];
  const engineResults = Promise.all(engineErrors.map(([args]) => cliAsync(args)));

  const usageErrors = [
    ['translate', '--model', GEN, '--frobnicate', 'w5'],
    ['translate', '--model', GEN, '-z', 'w5'],
    ['translate', 'w5'],
    ['translate', '-m', GEN, '--beam', 'four', 'w5'],
    ['translate', '-m', GEN, '--beam', '0', 'w5'],
    ['translate', '-m', GEN, '--temperature', 'hot', 'w5'],
    ['translate', '-m', GEN, '--ids', '4,x'],
    ['translate', '-m', GEN, '--ids', '4,5', 'w5'],
    ['translate', '-m', GEN, '--max-length'],
    ['translate', '-m', GEN, '--json=yes', 'w5'],
    ['info', '-m', GEN, '--beam', '2'],
    ['info'],
    ['translate', '-m', GEN, '--seed', '-1', 'w5'],
    ['translate', '-m', GEN, '--num-hypotheses', '-1', 'w5'],
    ['translate', '-m', GEN, '--max-length', '5000', 'w5'],  // beyond the engine's table's range
    ['translate', '-m', GEN, '--no-repeat-ngram', '1.5', 'w5'],
    ['translate', '-m', GEN, '--length-penalty', 'x', 'w5'],
    ['translate', '-m', GEN, '--threads', '2', 'w5'],
    ['translate', '-m', GEN, '--batch-file', GEN, '--threads', '65'],
    ['translate', '-m', GEN, '--color', '--no-color', 'w5'],
    ['transmogrify'],
    [],
  ];
  const usageResults = await Promise.all(usageErrors.map((args) => cliAsync(args)));
  usageErrors.forEach((args, i) => {
    const u = usageResults[i];
    assert.equal(u.code, 2, `${args.join(' ')}: ${u.err}`);
    assert.match(u.err, /^attnseq: USAGE: .+\n\nusage:\n {2}attnseq translate --model FILE/, args.join(' '));
    assert.equal(u.out, '');
  });
  (await engineResults).forEach((e, i) => {
    const [args, code] = engineErrors[i];
    assert.equal(e.code, 1, args.join(' '));
    assert.match(e.err, new RegExp(`^attnseq: ${code}: \\S`), args.join(' '));
  });
  r = cli(['translate', '-m', GEN], { input: '' });   // no TEXT and an empty stdin
  assert.equal(r.code, 2);

  for (const args of [['--help'], ['translate', '--help'], ['info', '-h']]) {
    r = cli(args);
    assert.equal(r.code, 0);
    assert.match(r.out, /^usage:\n {2}attnseq translate --model FILE/);
    assert.match(r.out, /--beam K/);
    assert.equal(r.err, '');
  }
});

test('no escape codes unless colour is wanted: piped, NO_COLOR, --no-color; --color gives viridis cells', () => {
  const args = ['translate', '-m', GEN, '--max-length', '4', SRC];
  for (const out of [ok(args), ok(args, { env: { NO_COLOR: '1' } }), ok([...args, '--no-color'])]) {
    assert.doesNotMatch(out, ESC);
    assert.match(out, /[░▒▓█]/);
  }
  const colored = ok([...args, '--color']);
  // Every weight sits on a 24-bit background; 1.0-ish is viridis yellow, ~0 is viridis purple.
  const cells = [...colored.matchAll(/\x1b\[48;2;(\d+);(\d+);(\d+)m\x1b\[38;2;[\d;]+m (1\.0|\.\d\d) \x1b\[0m/g)];
  const want = api.translate(SRC, { maxLength: 4 });
  assert.equal(cells.length, want.rows * want.cols);
  for (const [, r, g, b, v] of cells) {
    if (Number(v) >= 0.99) assert.deepEqual([+r, +g, +b], [253, 231, 37]);
    if (Number(v) === 0) assert.ok(+r < 80 && +g < 20 && +b < 100, `${r},${g},${b}`);
  }
  assert.doesNotMatch(colored, /[░▒▓█]/);
  assert.match(colored, /weights: 0 (\x1b\[48;2;[\d;]+m \x1b\[0m){20} 1/);
  // JSON and --quiet never carry colour.
  assert.doesNotMatch(ok(['translate', '-m', GEN, '--json', '--color', SRC]), ESC);
  assert.equal(cli([...args, '--color', '--no-color']).code, 2);
});

test('on a terminal (a pty via script(1)) colour is on, and NO_COLOR turns it off', { skip: !existsSync('/usr/bin/script') && 'no script(1)' }, () => {
  const run = (env) => {
    const cmd = [process.execPath, BIN, 'translate', '-m', GEN, '--max-length', '3', SRC].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('/usr/bin/script', ['-qec', cmd, '/dev/null'], {
      encoding: 'utf8', timeout: 30000, env: { ...process.env, TERM: 'xterm-256color', NO_COLOR: '', ...env },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const tty = run({});
  assert.match(tty, /\x1b\[48;2;\d+;\d+;\d+m/);
  assert.ok(tty.includes(api.translate(SRC, { maxLength: 3 }).text));
  assert.doesNotMatch(run({ NO_COLOR: '1' }), /\x1b\[48;2/);
  assert.doesNotMatch(run({ TERM: 'dumb' }), /\x1b\[48;2/);
});

test('Hangul and long source tokens keep the heatmap columns aligned', () => {
  const ko = withVocab('ko', ['제인이', '가게에', '갔다', 'Jane', 'went', 'to', 'the', 'store', 'é'],
    ['제인이', '가게에', '갔다', 'x', 'y', 'z', 'w']);
  const src = ['제인이', '가게에', '갔다', 'é', 'Jane'];
  // The prefix puts Hangul target tokens (width 6) among narrow ones as row labels.
  const args = ['translate', '-m', ko, '--max-length', '4', '--prefix', '제인이 x 가게에', src.join(' ')];
  const want = JSON.parse(ok([...args, '--json']));
  assert.deepEqual(want.tgtTokens.slice(0, 3), ['제인이', 'x', '가게에']);
  // Shade cells are "▓▓.83 " (weight 2 columns in), colour cells " .83 " (1 column in); both paint 5.
  for (const [flag, inset] of [['--no-color', 2], ['--color', 1]]) {
    const out = ok([...args, flag]).replace(/\x1b\[[\d;]*m/g, '');
    const lines = out.split('\n');
    const body = lines.slice(lines.findIndex((l) => l.startsWith('alignment')) + 1, lines.findIndex((l) => l.startsWith(' weights:')));
    const data = body.filter((l) => /\.\d\d|1\.0/.test(l));
    const labels = body.filter((l) => !data.includes(l));
    assert.equal(data.length, want.tgtTokens.length, out);
    // Every data row is labelled by its target token and puts its weights at the same display
    // columns, evenly spaced.
    data.forEach((l, k) => assert.equal(l.trim().split(/\s+/)[0], want.tgtTokens[k]));
    const cols = columnsOf(data[0], /1\.0|\.\d\d/g);
    assert.equal(cols.length, src.length);
    cols.forEach((c, t) => assert.equal(c, cols[0] + t * (cols[1] - cols[0]), out));
    for (const l of data) assert.deepEqual(columnsOf(l, /1\.0|\.\d\d/g), cols, `${flag}:\n${out}`);
    // Source labels longer than a cell run down their column: the label lines spell each token, and
    // every piece is centred (within half a column) over the 5 painted columns of its cell.
    const spelled = src.map(() => '');
    for (const l of labels) {
      for (const m of l.matchAll(/\S/gu)) {
        const at = width(l.slice(0, m.index)), mid = at + width(m[0]) / 2;
        const t = cols.findIndex((c) => Math.abs(mid - (c - inset + 2.5)) <= 0.5);
        assert.ok(t >= 0, `${flag}: label piece '${m[0]}' at column ${at} is not centred over a cell (weights at ${cols}):\n${out}`);
        spelled[t] += m[0];
      }
    }
    assert.deepEqual(spelled, src, `${flag}:\n${out}`);
  }

  // A token too long to run down a column: columns are numbered and a legend names them.
  const long = withVocab('long', ['internationalisation', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  const out2 = ok(['translate', '-m', long, '--max-length', '2', 'a internationalisation b c']);
  assert.match(out2, /^\s+1\s+2\s+3\s+4$/m);
  assert.match(out2, /source: {2}1 a {2}2 internationalisation {2}3 b {2}4 c/);
});

test('a narrow terminal wraps many columns into blocks; stdin lines are translated one by one', () => {
  const many = 'w5 w6 w7 w8 w4 w9 w10 w11 w12 w5 w6 w7 w8 w4';
  const out = ok(['translate', '-m', GEN, '--max-length', '2', many], { env: { COLUMNS: '50' } });
  const table = out.split('\n').filter((l) => /^ {3}|^ w\d+ /.test(l));
  assert.equal(table.length, 2 * 3, out);   // two blocks: a header and two rows each
  assert.ok(table.every((l) => width(l) <= 50), out);
  const weights = table.flatMap((l) => l.match(/1\.0|\.\d\d/g) ?? []);
  assert.equal(weights.length, 2 * 14);
  assert.deepEqual(table.filter((l) => !/\.\d\d/.test(l)).flatMap((l) => l.trim().split(/\s+/)), many.split(' '));

  const lines = ok(['translate', '-m', GEN, '--json'], { input: 'w5 w6\n\n  \nw7 w8 w9\n' }).trim().split('\n');
  assert.equal(lines.length, 2);
  assert.deepEqual(JSON.parse(lines[1]).tokens, api.translate('w7 w8 w9').tokens);
  assert.equal(ok(['translate', '-m', GEN, '-q'], { input: 'w5 w6\nw7 w8 w9\n' }),
    `${api.translate('w5 w6').text}\n${api.translate('w7 w8 w9').text}\n`);
});

test('info describes the checkpoint; --json carries the config', () => {
  const file = FIX('lstm_bahdanau_additive');
  const out = ok(['info', '--model', file]);
  assert.match(out, /^cell\s+lstm, 1 layer/m);
  assert.match(out, /^attention\s+bahdanau, score additive/m);
  assert.match(out, /^parameters\s+[\d,]+$/m);
  const j = JSON.parse(ok(['info', '-m', file, '--json']));
  assert.equal(j.cell, 'lstm');
  assert.equal(j.style, 'bahdanau');
  assert.equal(j.srcVocab.length, j.srcVocabSize);
  assert.match(ok(['info', '-m', FIX('tensors_only')]), /^tokenizer\s+ids$/m);
  assert.match(ok(['--version']), /^\d+\.\d+\.\d+\n$/);
});
