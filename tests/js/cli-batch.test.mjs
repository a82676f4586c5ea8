// `attnseq translate --batch-file FILE` in both command lines (build/native/attnseq or
// $ATTNSEQ_NATIVE_CLI, and bin/attnseq.js): the output is, byte for byte, what translating each
// non-blank line alone prints (text and --json, greedy and beam), `-` reads standard input, lines end
// at LF, CRLF or CR, a BOM and blank lines are skipped, a bad line is named by its line number before
// anything is printed, and the two command lines print the same JSON (weights within the
// native/wasm rounding). Fails if either command line is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const JS_CLI = path.join(ROOT, 'bin/attnseq.js');
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const FIX = (n) => path.join(ROOT, 'tests/data/parity', `${n}.safetensors`);
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-cli-batch-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
// Native and wasm kernels differ in the last bits: 2e-5 in tests/js/native-cli.test.mjs; g2p-en
// (hidden 256, a 512-wide bidirectional memory) drifts further, up to 2.5e-5 in an attention weight.
const TOL = 1e-4;

/** One command line ('native' or 'js') with `input` on stdin: { code, out, err }. */
function run(cli, args, input = '') {
  if (cli === 'native') requireNativeCli();
  else if (!existsSync(path.join(ROOT, 'dist/attnseq-core.mjs'))) assert.fail('dist/ is missing: run `bash scripts/build.sh` first');
  const [cmd, pre] = cli === 'native' ? [NATIVE_CLI, []] : [process.execPath, [JS_CLI]];
  const env = { ...process.env, NO_COLOR: '1' };
  delete env.COLUMNS;
  const r = spawnSync(cmd, [...pre, 'translate', ...args], { input, encoding: 'utf8', timeout: 120000, env, maxBuffer: 1 << 28 });
  assert.equal(r.error, undefined, String(r.error));
  assert.equal(r.signal, null, `${cli} translate ${args.join(' ')}: killed by ${r.signal}`);
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function ok(cli, args, input) {
  const r = run(cli, args, input);
  assert.equal(r.code, 0, `${cli} translate ${args.join(' ')}: exit ${r.code}; stderr: ${r.err}`);
  assert.equal(r.err, '', `${cli} translate ${args.join(' ')}: stderr`);
  return r.out;
}
let files = 0;
function file(content) {
  const f = path.join(TMP, `batch-${++files}.txt`);
  writeFileSync(f, content);
  return f;
}

// Per model: lines of varied length, with characters the vocabulary lacks and mixed letter case
// (none starts with '-', so each is also a TEXT argument as it stands).
const LINES = {
  'g2p-en': ['KNIGHT', 'knight', 'kNiGhT', 'psychology', 'Phoenix', 'xerox', 'thorough', 'Worcester', 'photograph', 'a',
    'ox', 'kn!ght', 'naïve', "o'neil", 'supercalifragilistic', 'ABBENHAUS', 'zyzzyva', 'Q', '日本', 'internationalization'],
  'en-ko': ['Jane went to the store', 'Tom ate an apple', 'Mina read the book at the library', 'jane WENT to the store',
    'Jane went to the supermarket', 'Sora', 'Minho drank coffee at the cafe', 'Tom ate an apple and Jane went to the store'],
  dates: ['3 March 2018', 'Saturday, March 3, 2018', '03/03/18', 'the 4th of January, 2034', 'JUL 21, 2015', '14.08.2004',
    '3 März 2018', '1/1/1'],
  reverse: ['abcdefghij', 'hello', 'a', 'thisisatest', 'ABC', 'abcdefghijklmnopqrstabcdefghijklmnopqrst'],
};

const isFloat = (x) => typeof x === 'number' && !Number.isInteger(x);
// Same keys (same order), same array lengths, equal strings/integers/booleans/null; floats close.
function assertSame(nat, js, where, scale = 1) {
  if (Array.isArray(js)) {
    assert.ok(Array.isArray(nat), `${where}: native should be an array`);
    assert.equal(nat.length, js.length, `${where}: length`);
    js.forEach((v, i) => assertSame(nat[i], v, `${where}[${i}]`, scale));
  } else if (js !== null && typeof js === 'object') {
    assert.deepEqual(Object.keys(nat), Object.keys(js), `${where}: keys`);
    for (const k of Object.keys(js)) assertSame(nat[k], js[k], `${where}.${k}`, k === 'score' || k === 'logProb' ? Math.max(1, Math.abs(js[k])) : scale);
  } else if (isFloat(js) || isFloat(nat)) {
    assert.ok(Math.abs(nat - js) <= TOL * scale, `${where}: native ${nat} vs js ${js}`);
  } else {
    assert.equal(nat, js, where);
  }
}

test('native --batch-file prints, line by line, what translating each line alone prints (text and --json, greedy and beam)', () => {
  for (const [id, lines] of Object.entries(LINES)) {
    const batch = file(lines.join('\n') + '\n');
    for (const opts of [[], ['--beam', '3']]) {
      const what = `${id} ${opts.join(' ')}`;
      const single = lines.map((l) => ok('native', ['--model', MODEL(id), ...opts, l]));
      assert.equal(ok('native', ['--model', MODEL(id), ...opts, '--batch-file', batch]), single.join('\n'), `${what}: text`);
      const singleJson = lines.map((l) => ok('native', ['--model', MODEL(id), ...opts, '--json', l]));
      singleJson.forEach((j, i) => assert.equal(j.split('\n').length, 2, `${what}: line ${i + 1} is one JSON line`));
      const got = ok('native', ['--model', MODEL(id), ...opts, '--json', '--batch-file', batch]);
      assert.equal(got, singleJson.join(''), `${what}: --json`);
      // Not vacuous: the lines translate differently.
      assert.ok(new Set(singleJson.map((j) => JSON.parse(j).text)).size >= lines.length / 2, `${what}: varied outputs`);
    }
  }
  // An ids-only model: each line is ids ("4 5 6" or "4,5,6"), read as --ids reads them. Its hidden size
  // (12) is no multiple of AVX2's or AVX-512's width, so rows of a batch start mid-vector: the same
  // bits still (the elementwise kernels take a vector's tail through a padded vector).
  const ids = ['11,6,9,4,11', '5 6', ' 7 ,  8 ', '4'];
  const single = ids.map((l) => JSON.parse(ok('native', ['--model', FIX('tensors_only'), '--json', '--ids', l.trim().split(/[\s,]+/).join(',')])));
  const batch = ok('native', ['--model', FIX('tensors_only'), '--json', '--batch-file', file(ids.join('\n'))]).trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(batch, single, 'tensors_only');
  assert.deepEqual(batch.map((j) => j.srcIds), [[11, 6, 9, 4, 11], [5, 6], [7, 8], [4]]);
});

test('--batch-file -: standard input; LF, CRLF and CR end lines; a BOM and blank lines are skipped; both command lines', () => {
  const lines = LINES['g2p-en'].slice(0, 8);
  const plain = lines.join('\n') + '\n';
  const messy = `\ufeff${lines[0]}\r\n\r\n   \t\n${lines[1]}\r${lines[2]}\n\u3000\n${lines.slice(3).join('\r\n')}`;
  for (const cli of ['native', 'js']) {
    const want = ok(cli, ['--model', MODEL('g2p-en'), '--json', '--batch-file', file(plain)]);
    assert.equal(want.split('\n').length, lines.length + 1, `${cli}: one JSON line per input`);
    assert.equal(ok(cli, ['--model', MODEL('g2p-en'), '--json', '--batch-file', '-'], plain), want, `${cli}: stdin`);
    assert.equal(ok(cli, ['--model', MODEL('g2p-en'), '--json', '--batch-file', file(messy)]), want, `${cli}: line ends, BOM, blank lines`);
    assert.equal(ok(cli, ['--model', MODEL('g2p-en'), '--json', '--batch-file', '-'], messy), want, `${cli}: the same on stdin`);
    // Nothing to translate: nothing printed, success.
    assert.equal(ok(cli, ['--model', MODEL('g2p-en'), '--batch-file', file('\n  \n\r\n')]), '', `${cli}: blank file`);
    assert.equal(ok(cli, ['--model', MODEL('g2p-en'), '--batch-file', '-'], ''), '', `${cli}: empty stdin`);
  }
});

test('a bad line is named by its line number (blank lines counted); nothing is printed; exit 1', () => {
  const long = 'a'.repeat(1100);
  const cases = [
    // [model, bytes, where the message must point, message after "NAME "]
    ['reverse', `abc\n\nhello\n${long}\nabc\n`, 'line 4: encode: the source has 1100 tokens; the maximum is 1024'],
    ['reverse', Buffer.concat([Buffer.from('abc\r\n\r\nh\u00e9'), Buffer.from([0xff]), Buffer.from('llo\n')]), ': invalid UTF-8 at byte 10 (line 3)'],
    ['reverse', `abc\r\nabc\r\n${'b'.repeat((1 << 20) + 1)}\r\n`, `line 3: text is ${(1 << 20) + 1} bytes; the maximum is 1048576`],
  ];
  for (const [id, bytes, tail] of cases) {
    const f = file(bytes);
    for (const cli of ['native', 'js']) {
      for (const [arg, name] of [[f, f], ['-', 'standard input']]) {
        const r = run(cli, ['--model', MODEL(id), '--batch-file', arg], arg === '-' ? bytes : '');
        const what = `${cli} ${name}${tail}`;
        assert.equal(r.code, 1, `${what}: exit ${r.code}; ${r.err}`);
        assert.equal(r.out, '', `${what}: nothing on stdout`);
        const message = r.err.replace(/^attnseq: (?:[A-Z_]+: )?/, '').trimEnd();
        assert.equal(message, `${name}${tail.startsWith(':') ? '' : ' '}${tail}`, what);
      }
    }
  }
  // Text for an ids-only model, and an id outside its vocabulary.
  for (const cli of ['native', 'js']) {
    const r = run(cli, ['--model', FIX('tensors_only'), '--batch-file', file('4 5\n\nw5 w6\n')]);
    assert.equal(r.code, 1, `${cli}: ${r.err}`);
    assert.match(r.err, /line 3: this model has no vocabulary: give token ids instead of text\n$/, cli);
    const out = run(cli, ['--model', FIX('tensors_only'), '--batch-file', file('4 5\n4 999\n')]);
    assert.equal(out.code, 1, `${cli}: ${out.err}`);
    assert.match(out.err, /batch-\d+\.txt line 2: .*999.*vocabulary/, cli);
  }
  // A missing file, and a batch file with TEXT or --ids.
  for (const cli of ['native', 'js']) {
    const missing = path.join(TMP, 'no-such-file.txt');
    const r = run(cli, ['--model', MODEL('reverse'), '--batch-file', missing]);
    assert.equal(r.code, 1, `${cli}: ${r.err}`);
    assert.ok(r.err.includes(`cannot open '${missing}'`), `${cli}: ${r.err}`);
    for (const extra of [['abc'], ['--ids', '4,5']]) {
      const both = run(cli, ['--model', MODEL('reverse'), '--batch-file', file('abc\n'), ...extra]);
      assert.notEqual(both.code, 0, `${cli} ${extra.join(' ')}`);
      assert.match(both.err, /give one of --batch-file, --ids or TEXT/, cli);
    }
  }
});

test('native --batch-file --threads N: the same output for any N; a bad N, or N without a batch file, is refused', () => {
  const lines = [...LINES['g2p-en'], ...LINES['g2p-en'].map((w) => `${w}s`)];
  const batch = file(lines.join('\n'));
  for (const opts of [['--json'], ['--beam', '3', '--json'], ['--temperature', '0.9', '--seed', '4']]) {
    const what = opts.join(' ');
    const one = ok('native', ['--model', MODEL('g2p-en'), ...opts, '--threads', '1', '--batch-file', batch]);
    assert.equal(one.trimEnd().split('\n').length >= lines.length, true, `${what}: every line printed`);
    for (const n of ['2', '3', '64']) assert.equal(ok('native', ['--model', MODEL('g2p-en'), ...opts, '--threads', n, '--batch-file', batch]), one, `${what} --threads ${n}`);
    assert.equal(ok('native', ['--model', MODEL('g2p-en'), ...opts, '--batch-file', batch]), one, `${what}: the default thread count`);
  }
  for (const [n, message] of [['0', "--threads expects an integer in [1, 256], got '0'"],
    ['257', "--threads expects an integer in [1, 256], got '257'"], ['two', "--threads expects an integer, got 'two'"]]) {
    const r = run('native', ['--model', MODEL('g2p-en'), '--threads', n, '--batch-file', batch]);
    assert.equal(r.code, 2, `--threads ${n}: a usage error, exit ${r.code}; ${r.err}`);
    assert.equal(r.out, '');
    assert.ok(r.err.includes(message), `--threads ${n}: ${r.err}`);
  }
  const alone = run('native', ['--model', MODEL('g2p-en'), '--threads', '2', 'knight']);
  assert.equal(alone.code, 2, alone.err);
  assert.match(alone.err, /--threads shares a --batch-file's lines among threads; give it with --batch-file/);
});

test('npx attnseq --batch-file --threads N (a pool of Workers): the same output for any N; a bad line is named; a bad N, or N without a batch file, is refused', () => {
  const lines = [...LINES['g2p-en'], ...LINES['g2p-en'].map((w) => `${w}s`)];
  const batch = file(lines.join('\n'));
  for (const opts of [['--json'], ['--beam', '3', '--json'], ['--temperature', '0.9', '--seed', '4']]) {
    const what = opts.join(' ');
    const one = ok('js', ['--model', MODEL('g2p-en'), ...opts, '--threads', '1', '--batch-file', batch]);
    assert.equal(one.trimEnd().split('\n').length >= lines.length, true, `${what}: every line printed`);
    for (const n of ['2', '3']) assert.equal(ok('js', ['--model', MODEL('g2p-en'), ...opts, '--threads', n, '--batch-file', batch]), one, `${what} --threads ${n}`);
    assert.equal(ok('js', ['--model', MODEL('g2p-en'), ...opts, '--batch-file', batch]), one, `${what}: the default thread count`);
  }
  // A bad line (the 4th line of the file, the 3rd input: over the 1,024-token limit) in a Worker's share.
  const bad = file(['knight', 'ox', '', 'a'.repeat(2000), 'zebra'].join('\n'));
  for (const n of ['1', '3']) {
    const r = run('js', ['--model', MODEL('g2p-en'), '--threads', n, '--batch-file', bad]);
    assert.equal(r.code, 1, `--threads ${n}: exit ${r.code}; ${r.err}`);
    assert.equal(r.out, '');
    assert.match(r.err, new RegExp(`^attnseq: TOO_LONG: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 4: `), `--threads ${n}`);
  }
  for (const [n, message] of [['0', "--threads must be an integer >= 1, got '0'"], ['65', "--threads must be at most 64, got '65'"],
    ['two', "--threads expects an integer, got 'two'"]]) {
    const r = run('js', ['--model', MODEL('g2p-en'), '--threads', n, '--batch-file', batch]);
    assert.equal(r.code, 2, `--threads ${n}: exit ${r.code}; ${r.err}`);
    assert.equal(r.out, '');
    assert.ok(r.err.includes(message), `--threads ${n}: ${r.err}`);
  }
  const alone = run('js', ['--model', MODEL('g2p-en'), '--threads', '2', 'knight']);
  assert.equal(alone.code, 2, alone.err);
  assert.match(alone.err, /--threads shares a --batch-file's lines among Workers; give it with --batch-file/);
});

test('npx attnseq --batch-file prints what the native one prints (--json), and what its own line-by-line stdin mode prints', () => {
  for (const [id, lines] of Object.entries(LINES)) {
    const batch = file(lines.join('\n') + '\n');
    for (const opts of [[], ['--beam', '3']]) {
      const what = `${id} ${opts.join(' ')}`;
      const nat = ok('native', ['--model', MODEL(id), ...opts, '--json', '--batch-file', batch]).trimEnd().split('\n').map((l) => JSON.parse(l));
      const jsOut = ok('js', ['--model', MODEL(id), ...opts, '--json', '--batch-file', batch]);
      const js = jsOut.trimEnd().split('\n').map((l) => JSON.parse(l));
      assert.equal(js.length, lines.length, `${what}: one JSON line per input`);
      assertSame(nat, js, what);
      // The JS command line's batch output equals its stdin mode's (translate() per line), text too.
      assert.equal(jsOut, ok('js', ['--model', MODEL(id), ...opts, '--json'], lines.join('\n')), `${what}: --json vs stdin`);
      assert.equal(ok('js', ['--model', MODEL(id), ...opts, '--batch-file', batch]), ok('js', ['--model', MODEL(id), ...opts], lines.join('\n')), `${what}: text vs stdin`);
      assert.equal(ok('js', ['--model', MODEL(id), ...opts, '-q', '--batch-file', batch]), js.map((j) => `${j.text}\n`).join(''), `${what}: -q, one line per input`);
    }
  }
  // Ids-only lines and --hypotheses / --replace-unknowns go through as in stdin mode.
  const idsFile = file('11,6,9,4,11\n5 6\n');
  assertSame(ok('native', ['--model', FIX('tensors_only'), '--json', '--batch-file', idsFile]).trimEnd().split('\n').map((l) => JSON.parse(l)),
    ok('js', ['--model', FIX('tensors_only'), '--json', '--batch-file', idsFile]).trimEnd().split('\n').map((l) => JSON.parse(l)), 'tensors_only');
  const enko = file(LINES['en-ko'].join('\n'));
  const extra = ['--model', MODEL('en-ko'), '-b', '4', '-n', '2', '--replace-unknowns', '--json'];
  assert.equal(ok('js', [...extra, '--batch-file', enko]), ok('js', extra, LINES['en-ko'].join('\n')));
});
