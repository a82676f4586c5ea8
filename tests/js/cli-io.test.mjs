// `npx attnseq` (bin/attnseq.js) at the edges of what it reads and writes: a failed write on standard
// output exits 1 with a message (no stack trace); a closed standard input or a directory as standard
// input is reported (exit 1); an argument that was not valid UTF-8 is refused; every string from a
// checkpoint (name, task, metadata, vocabulary tokens) reaches the terminal escaped, in text and in
// --json; --batch-file writes results a window at a time, before its input has ended, and a bad line
// after the first window stops the run naming it once the earlier results are out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../wasm/attnseq.js';
import { withMetadata, headerOf } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'bin/attnseq.js');
const REVERSE = path.join(ROOT, 'models/reverse.safetensors');
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-cli-io-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));
const env = { ...process.env, NO_COLOR: '1' };

/** bin/attnseq.js under `sh -c`, so that a test can close or redirect its descriptors (`redirect`). */
function sh(args, redirect = '', input = undefined) {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('/bin/sh', ['-c', `exec ${quoted} ${redirect}`], { encoding: 'utf8', input, env, timeout: 60000 });
  assert.equal(r.error, undefined, String(r.error));
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('a failed write on standard output (/dev/full) exits 1 with a message, never a stack trace', () => {
  const list = path.join(TMP, 'lines.txt');
  writeFileSync(list, 'abc\nhello\n');
  for (const args of [['translate', '--model', REVERSE, 'abc'], ['translate', '--model', REVERSE, '--json', '--batch-file', list],
    ['translate', '--model', REVERSE, '-q', '--batch-file', list, '--threads', '2'], ['info', '--model', REVERSE], ['--help']]) {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', env, timeout: 60000 });
      assert.equal(r.status, 1, `${args.join(' ')}: exit ${r.status}; ${r.stderr}`);
      assert.match(r.stderr, /^attnseq: WRITE_FAILED: cannot write to standard output: ENOSPC: no space left on device/, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${args.join(' ')}: no stack trace`);
    } finally {
      closeSync(full);
    }
  }
});

test('a closed standard input, or a directory as standard input, is reported (exit 1); /dev/null is an empty input', () => {
  for (const args of [['--batch-file', '-', '-q'], ['-q']]) {
    for (const [redirect, why] of [['<&-', 'it is closed'], ['< /', 'it is a directory']]) {
      const r = sh(['translate', '--model', REVERSE, ...args], redirect);
      assert.equal(r.code, 1, `${args.join(' ')} ${redirect}: exit ${r.code}; ${r.err}`);
      assert.equal(r.out, '');
      assert.equal(r.err, `attnseq: LOAD_FAILED: cannot read standard input: ${why}\n`, `${args.join(' ')} ${redirect}`);
    }
  }
  const empty = sh(['translate', '--model', REVERSE, '--batch-file', '-', '-q'], '< /dev/null');
  assert.deepEqual(empty, { code: 0, out: '', err: '' });
  const dir = sh(['translate', '--model', REVERSE, '--batch-file', TMP, '-q']);
  assert.equal(dir.code, 1);
  assert.match(dir.err, /^attnseq: LOAD_FAILED: cannot open '.*': it is a directory\n$/);
});

test('an argument that is not valid UTF-8 is refused, naming it; a U+FFFD typed as such is text', async () => {
  const model = await loadModel(REVERSE);
  try {
    // printf writes the raw bytes; the argument numbers count from the command.
    for (const [args, n] of [[['"$(printf \'ab\\377c\')"'], 5], [['--prefix', '"$(printf \'\\300\\200\')"', 'abc'], 6]]) {
      const quoted = [process.execPath, CLI, 'translate', '--model', REVERSE, '-q'].map((a) => `'${a}'`).join(' ');
      const r = spawnSync('/bin/sh', ['-c', `exec ${quoted} ${args.join(' ')}`], { encoding: 'utf8', env, timeout: 60000 });
      assert.equal(r.status, 1, `${args.join(' ')}: exit ${r.status}; ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`^attnseq: BAD_INPUT: argument ${n} is not valid UTF-8 \\(byte \\d\\)\n$`), args.join(' '));
    }
    const typed = sh(['translate', '--model', REVERSE, '-q', 'ab\ufffdc']);
    assert.equal(typed.code, 0, typed.err);
    assert.equal(typed.out, model.translate('ab\ufffdc').text + '\n');
  } finally {
    model.dispose();
  }
});

test('strings from a checkpoint reach the terminal escaped: name, task, metadata, vocabulary tokens; text and --json', () => {
  const bytes = new Uint8Array(readFileSync(REVERSE));
  const meta = headerOf(bytes).__metadata__;
  const hostile = '\x1b]0;owned\x07\x1b[2J\u009b31m';
  const tgt = JSON.parse(meta.tgt_vocab).map((t) => (/^[a-z]$/.test(t) ? `${t}${hostile}` : t));
  const file = path.join(TMP, 'hostile.safetensors');
  writeFileSync(file, withMetadata(bytes, { name: `n${hostile}`, task: `t${hostile}`, description: `d${hostile}\nline 2`,
    [`k${hostile}`]: `v${hostile}`, tgt_vocab: JSON.stringify(tgt) }));
  const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
  const runs = [
    ['info', '--model', file], ['info', '--model', file, '--json'],
    ['translate', '--model', file, 'abc'], ['translate', '--model', file, '-q', 'abc'], ['translate', '--model', file, '--json', 'abc'],
    ['translate', '--model', file, '--beam', '3', 'abcdef'],
  ];
  for (const args of runs) {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env, timeout: 60000 });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, CONTROL, `${args.join(' ')}: a raw control character on stdout`);
    assert.doesNotMatch(r.stderr, CONTROL, `${args.join(' ')}: on stderr`);
    if (args.includes('--json')) JSON.parse(r.stdout.trimEnd().split('\n')[0]);  // still JSON
  }
  const info = spawnSync(process.execPath, [CLI, 'info', '--model', file], { encoding: 'utf8', env }).stdout;
  assert.match(info, /^name +n\\x1b\]0;owned\\x07\\x1b\[2J\\x9b31m$/m);
  assert.match(info, /^task +t\\x1b/m);
  assert.match(info, /^k\\x1b\]0;owned\\x07\\x1b\[2J\\x9b31m +v\\x1b/m);
  const json = JSON.parse(spawnSync(process.execPath, [CLI, 'translate', '--model', file, '--json', 'abc'], { encoding: 'utf8', env }).stdout);
  assert.ok(json.tgtTokens.some((t) => t.endsWith(hostile)), 'the --json strings are the tokens themselves');
  // An error naming a token from the file is escaped too.
  const bad = spawnSync(process.execPath, [CLI, 'translate', '--model', file, '--prefix', `\u009bz`, 'abc'], { encoding: 'utf8', env });
  assert.equal(bad.status, 1);
  assert.doesNotMatch(bad.stderr, CONTROL);
});

// (The timeout turns a run that waits for its whole input before printing, which would never end here, into a failure.)
test('--batch-file writes results a window at a time, before its input ends; a bad line in a later window is named after the earlier results', { timeout: 120000 }, async () => {
  const model = await loadModel(REVERSE);
  try {
    const words = Array.from({ length: 600 }, (_, i) => 'abcdefghij'.slice(0, 1 + (i % 10)) + 'xyz'.slice(0, i % 3));
    const child = spawn(process.execPath, [CLI, 'translate', '--model', REVERSE, '-q', '--batch-file', '-', '--threads', '1'], { env });
    let out = '';
    const firstOutput = new Promise((resolve) => child.stdout.on('data', (d) => { out += d; resolve(); }));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.stdin.write(words.slice(0, 300).join('\n') + '\n');  // more than one window (256), and the input stays open
    await firstOutput;
    assert.ok(out.length > 0, 'results came out while standard input was still open');
    child.stdin.end(words.slice(300).join('\n') + '\n');
    assert.equal(await exited, 0);
    assert.equal(out, words.map((w) => model.translate(w).text).join('\n') + '\n');

    // The bad line is the 401st input: the first window's results are printed, then the error.
    const lines = [...words.slice(0, 400), '', 'a'.repeat(1100), 'abc'];
    const file = path.join(TMP, 'late-bad.txt');
    writeFileSync(file, lines.join('\n'));
    const r = spawnSync(process.execPath, [CLI, 'translate', '--model', REVERSE, '-q', '--batch-file', file, '--threads', '1'], { encoding: 'utf8', env });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^attnseq: TOO_LONG: .*late-bad\\.txt line 402: `));
    const printed = r.stdout.split('\n').filter(Boolean);
    assert.ok(printed.length >= 256 && printed.length < 400, `${printed.length} results printed before the error`);
    assert.deepEqual(printed, words.slice(0, printed.length).map((w) => model.translate(w).text));
  } finally {
    model.dispose();
  }
});
