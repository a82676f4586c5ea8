// How `attnseq` (bin/attnseq.js) reads its input: standard input from real shell pipelines (a writer
// that pauses, a 900 KB file through cat) read to the end as a stream; invalid UTF-8 refused with its
// byte offset; a leading BOM dropped; LF, CRLF and lone CR all ending lines; and short options with
// attached values (-b3) or grouped (-qb3) parsed as options, never taken as source text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../wasm/attnseq.js';

const BIN = fileURLToPath(new URL('../../bin/attnseq.js', import.meta.url));
const GEN = fileURLToPath(new URL('../data/parity/gru_luong_general.safetensors', import.meta.url));
const ENKO = fileURLToPath(new URL('../../models/en-ko.safetensors', import.meta.url));
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-cli-input-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

function env() {
  const e = { ...process.env };
  delete e.NO_COLOR; delete e.FORCE_COLOR; delete e.COLUMNS;
  return e;
}
function settle(child, input) {
  return new Promise((resolve, reject) => {
    const out = [], err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code, signal) => (signal ? reject(new Error(`killed by ${signal}`))
      : resolve({ code, out: Buffer.concat(out).toString('utf8'), err: Buffer.concat(err).toString('utf8') })));
    if (input !== undefined) child.stdin.end(input);
  });
}
/** The CLI with `input` (string or bytes) on a piped stdin. */
const cli = (args, input = '') => settle(spawn(process.execPath, [BIN, ...args], { env: env(), timeout: 60000 }), input);
/** A /bin/sh pipeline; "$NODE" and "$BIN" are set for it. */
function shell(script) {
  assert.ok(existsSync('/bin/sh'), 'these tests need /bin/sh to build real pipelines');
  return settle(spawn('/bin/sh', ['-c', script], { env: { ...env(), NODE: process.execPath, BIN }, timeout: 60000, stdio: ['ignore', 'pipe', 'pipe'] }));
}
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;  // a shell word
function okRun(r, what) {
  assert.equal(r.err, '', `${what}: stderr`);
  assert.equal(r.code, 0, `${what}: exit status`);
  return r.out;
}

const gen = await loadModel(GEN);
const enko = await loadModel(ENKO);
process.on('exit', () => { gen.dispose(); enko.dispose(); });

test('stdin from a pipe whose writer pauses, and a 900 KB file through cat, is read to its end', async () => {
  // The issue's own case: nothing on the pipe for a second, then a line.
  const paused = shell(`(sleep 1; echo "Jane went to the store") | "$NODE" "$BIN" translate --model ${q(ENKO)} -q`);
  // A line, a pause, then the rest: the first read gets part of the input, a later one must wait.
  const split = shell(`(printf 'w5 w6 w7\\n'; sleep 1; printf 'w9 w10\\nw8 w4\\n') | "$NODE" "$BIN" translate -m ${q(GEN)} -q`);
  // 300 distinct lines of 1,000 tokens each, far more than a pipe holds at once.
  const words = ['w4', 'w5', 'w6', 'w7', 'w8', 'w9', 'w10', 'w11', 'w12'];
  const lines = Array.from({ length: 300 }, (_, i) => Array.from({ length: 1000 }, (_, t) => words[(t * (1 + (i % 7)) + i) % 9]).join(' '));
  const file = path.join(TMP, 'big.txt');
  writeFileSync(file, lines.join('\n') + '\n');
  assert.ok(statSync(file).size > 900_000);
  const big = shell(`cat ${q(file)} | "$NODE" "$BIN" translate -m ${q(GEN)} --max-length 4 -q`);

  assert.equal(okRun(await paused, 'paused pipe'), enko.translate('Jane went to the store').text + '\n');
  assert.equal(okRun(await split, 'split pipe'), ['w5 w6 w7', 'w9 w10', 'w8 w4'].map((s) => gen.translate(s).text + '\n').join(''));
  const got = okRun(await big, 'cat of a large file').split('\n');
  assert.equal(got.pop(), '');
  assert.equal(got.length, lines.length);
  lines.forEach((l, i) => assert.equal(got[i], gen.translate(l, { maxLength: 4 }).text, `line ${i + 1}`));
});

test('invalid UTF-8 on stdin is refused with its byte offset and line; nothing is translated', async () => {
  const cases = [
    ['a byte that starts nothing', Buffer.from([0xff])],
    ['an overlong "/"', Buffer.from([0xc0, 0xaf])],
    ['a UTF-16 surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a code point above U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
    ['a sequence cut short', Buffer.from([0xe2, 0x82, 0x20])],
  ];
  const runs = cases.map(([, bad]) => {
    // Valid multi-byte text first, so the offset counts bytes, not characters; the bad bytes on line 3.
    const before = Buffer.from('w5 w6 é\r\nw7 한\nw8 ', 'utf8');
    return { offset: before.length, run: cli(['translate', '-m', GEN, '-q'], Buffer.concat([before, bad, Buffer.from(' w9\n')])) };
  });
  for (const [i, { offset, run }] of runs.entries()) {
    const r = await run;
    assert.equal(r.code, 1, `${cases[i][0]}: ${r.err}`);
    assert.equal(r.err, `attnseq: BAD_INPUT: standard input: invalid UTF-8 at byte ${offset} (line 3)\n`, cases[i][0]);
    assert.equal(r.out, '', cases[i][0]);
  }
});

test('a leading BOM is dropped; LF, CRLF and a lone CR each end a line', async () => {
  const bom = cli(['translate', '-m', GEN, '-q'], Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('w5 w6 w7\n')]));
  const ends = cli(['translate', '-m', GEN, '-q'], 'w5 w6\rw7 w8 w9\r\nw10 w4\n\r\nw11\r');
  // The BOM must change nothing: the first token is w5, not an unknown "\ufeffw5".
  assert.notEqual(gen.translate('\ufeffw5 w6 w7').text, gen.translate('w5 w6 w7').text, 'the fixture tells them apart');
  assert.equal(okRun(await bom, 'BOM'), gen.translate('w5 w6 w7').text + '\n');
  assert.equal(okRun(await ends, 'line ends'), ['w5 w6', 'w7 w8 w9', 'w10 w4', 'w11'].map((s) => gen.translate(s).text + '\n').join(''));
});

test('short options: -b3 and -qb3 are beam 3, never source text; unknown letters are usage errors', async () => {
  const SRC = ['w5', 'w6', 'w7'];
  const beam3 = gen.translate(SRC.join(' '), { beam: 3 }).text;
  assert.notEqual(gen.translate(`-b3 ${SRC.join(' ')}`).text, beam3, 'the fixture tells the two readings apart');
  assert.notEqual(gen.translate(SRC.join(' ')).text, beam3, 'beam 3 differs from greedy here');
  const runs = [
    cli(['translate', '-m', GEN, '-b3', '-q', ...SRC]),
    cli(['translate', '-m', GEN, '-qb3', ...SRC]),
    cli(['translate', `-m${GEN}`, '-qb', '3', ...SRC]),
    cli(['translate', '-m', GEN, '-q', '--', '-b3', ...SRC]),   // after --, it is text
  ];
  const bad = [['-x3'], ['-qz'], ['-bq3', '-q']].map((o) => cli(['translate', '-m', GEN, ...o, ...SRC]));
  const [a, b, c, text] = await Promise.all(runs);
  assert.equal(okRun(a, '-b3 -q'), beam3 + '\n');
  assert.equal(okRun(b, '-qb3'), beam3 + '\n');
  assert.equal(okRun(c, '-mFILE -qb 3'), beam3 + '\n');
  assert.equal(okRun(text, '-- -b3'), gen.translate(`-b3 ${SRC.join(' ')}`).text + '\n');
  const [x3, qz, bq3] = await Promise.all(bad);
  for (const [r, what, re] of [[x3, '-x3', /unknown option '-x'/], [qz, '-qz', /unknown option '-z'/], [bq3, '-bq3', /--beam expects an integer, got 'q3'/]]) {
    assert.equal(r.code, 2, `${what}: ${r.err}`);
    assert.match(r.err, /^attnseq: USAGE: /, what);
    assert.match(r.err, re, what);
    assert.equal(r.out, '', what);
  }
});
