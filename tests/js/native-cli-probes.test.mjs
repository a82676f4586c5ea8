// What probing the native command line found (issue 23), each held here: output that cannot be
// written is an error; a --prefix piece the model lacks is refused, not forced as <unk>; text from a
// checkpoint cannot drive the terminal; a checkpoint is read only as far as its own sizes say (a
// device that never ends is not read forever); a --batch-file is translated and printed a window at
// a time, so output comes before the input has ended and memory does not grow with it. Fails if the
// native CLI is missing (build/native/attnseq).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, cliOk, cliRefused, cliUsage, requireNativeCli } from './native.mjs';
import { headerOf, withHeader, withMetadata } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-probes-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

/** Runs the CLI through bash (for redirections): { code, out, err }. */
function sh(script) {
  requireNativeCli();
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 120000, maxBuffer: 1 << 28, env: { ...process.env, CLI: NATIVE_CLI } });
  assert.equal(r.error, undefined, String(r.error));
  assert.equal(r.signal, null, `${script}: killed by ${r.signal}`);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('a write to a full standard output is an error (exit 1, a message), for every command that prints', () => {
  const batch = path.join(TMP, 'words.txt');
  writeFileSync(batch, 'knight\nox\n');
  for (const args of [`translate --model ${MODEL('g2p-en')} knight`, `translate --model ${MODEL('g2p-en')} --json knight`,
    `translate --model ${MODEL('g2p-en')} --batch-file ${batch}`, `info --model ${MODEL('g2p-en')}`, 'translate --help']) {
    const r = sh(`"$CLI" ${args} > /dev/full`);
    assert.equal(r.code, 1, `${args} > /dev/full: exit ${r.code}; ${r.err}`);
    assert.match(r.err, /^attnseq: cannot write standard output: No space left on device\n$/, args);
  }
});

test('--prefix: a piece the target vocabulary lacks is refused naming it, as the package refuses it', () => {
  cliRefused(['translate', '--model', MODEL('g2p-en'), '--prefix', 'K XX', 'knight'],
    '--prefix: "XX" is not in the model\'s target vocabulary');
  cliRefused(['translate', '--model', MODEL('g2p-en'), '--prefix', 'QQ K ZZ QQ', 'knight'], '--prefix: "QQ", "ZZ" are not');
  // A known prefix is forced, and the model's own unk spelling is accepted.
  const j = JSON.parse(cliOk(['translate', '--model', MODEL('g2p-en'), '--prefix', 'K', '--json', 'knight']).out);
  assert.equal(j.tgtTokens[0], 'K');
  const unk = headerOf(readFileSync(MODEL('g2p-en'))).__metadata__;
  const tokens = JSON.parse(unk.tgt_vocab);
  const unkToken = tokens[Number(unk.unk ?? 3)];
  const u = JSON.parse(cliOk(['translate', '--model', MODEL('g2p-en'), '--prefix', unkToken, '--json', 'knight']).out);
  assert.equal(u.tgtTokens[0], unkToken);
});

test('text from a checkpoint reaches the terminal with its control characters shown as \\xNN', () => {
  const bytes = readFileSync(MODEL('reverse'));
  const meta = headerOf(bytes).__metadata__;
  const tgt = JSON.parse(meta.tgt_vocab);
  const src = JSON.parse(meta.src_vocab);
  // The target token for 'a' becomes ESC [ 2 J (clear the screen); name, task and description carry
  // ESC, BEL and a C1 control (U+009B, CSI).
  const a = tgt.indexOf('a');
  assert.ok(a > 0, 'the reverse model writes the letter a');
  tgt[a] = '\u001b[2J';
  const hostile = path.join(TMP, 'hostile.safetensors');
  writeFileSync(hostile, withMetadata(bytes, {
    name: 'evil\u001b]0;pwned\u0007', task: 'x\u009b31m', description: 'line one\nline two\u001b[2J', tgt_vocab: JSON.stringify(tgt),
  }));
  const info = cliOk(['info', '--model', hostile]).out;
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(info), `info prints no control character: ${JSON.stringify(info)}`);
  assert.match(info, /name: evil\\x1b\]0;pwned\\x07\n/);
  assert.match(info, /task: x\\x9b31m\n/);
  assert.match(info, /description: line one\nline two\\x1b\[2J\n/, 'a newline in free text is kept');
  const out = cliOk(['translate', '--model', hostile, 'abca']).out;
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(out), `translate prints no control character: ${JSON.stringify(out)}`);
  assert.ok(out.includes('\\x1b[2J'), out);
  // The source pieces are shown the same way: a tab in the source is \x09 on its row.
  assert.ok(src.length > 0);
  const tab = cliOk(['translate', '--model', MODEL('reverse'), 'ab\tc']).out;
  assert.match(tab, /source: .*=\\x09 /, tab);
});

test('a checkpoint is read only as far as its own sizes say: /dev/zero and endless streams end at once', () => {
  const t0 = Date.now();
  cliRefused(['translate', '--model', '/dev/zero', 'x'], "/dev/zero: safetensors: header length is 0");
  cliRefused(['info', '--model', '/dev/zero'], 'header length is 0');
  cliRefused(['quantize', '--in', '/dev/zero', '--out', path.join(TMP, 'q.safetensors')], 'header length is 0');
  // A real checkpoint followed by zeros without end loads: the reader stops where the file says it ends.
  const r = sh(`cat ${MODEL('reverse')} /dev/zero | "$CLI" translate --model /dev/stdin --json abc`);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).text, 'cba');
  // A header that claims more data than any checkpoint holds is refused before reading on.
  const huge = path.join(TMP, 'huge-header.safetensors');
  writeFileSync(huge, withHeader(readFileSync(MODEL('reverse')), (h) => {
    const k = Object.keys(h).find((n) => n !== '__metadata__');
    h[k].data_offsets = [0, 2 ** 52];
    return h;
  }).subarray(0, 8 + Number(readFileSync(MODEL('reverse')).readBigUInt64LE(0)) + 64));
  const z = sh(`cat ${huge} /dev/zero | "$CLI" info --model /dev/stdin`);
  assert.equal(z.code, 1, z.err);
  assert.match(z.err, /data_offsets reach \d+ bytes, more than the largest checkpoint/);
  assert.ok(Date.now() - t0 < 50000, 'none of these read for long');
});

test('--batch-file: each window of lines is printed before the next is read, and memory stays flat', async () => {
  requireNativeCli();
  // 5,000 words (more than one window of 4,096 lines) on a pipe that stays open: the first window's
  // output must arrive while the input is still open.
  const child = spawn(NATIVE_CLI, ['translate', '--model', MODEL('g2p-en'), '--json', '--batch-file', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
  const words = Array.from({ length: 5000 }, (_, i) => `w${'abcdefghij'[i % 10]}rd${'xyz'[i % 3]}`);
  child.stdin.write(words.join('\n') + '\n');
  const before = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no output within 60 s with stdin open; stderr: ${err}`)), 60000);
    const poll = setInterval(() => {
      if (out.split('\n').length > 4096) { clearInterval(poll); clearTimeout(timer); resolve(out.split('\n').length - 1); }
    }, 50);
  });
  assert.equal(before, 4096, 'the first window, whole, and nothing of the next: it waits for its lines');
  child.stdin.end();
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, err);
  const lines = out.trimEnd().split('\n');
  assert.equal(lines.length, 5000);
  // Each line is what translating its word alone prints.
  for (const i of [0, 4095, 4096, 4999]) {
    const alone = cliOk(['translate', '--model', MODEL('g2p-en'), '--json', words[i]]).out.trimEnd();
    assert.equal(lines[i], alone, `line ${i + 1}`);
  }
  // A bad line in the second window: the first window was printed, then exit 1 naming the line.
  const bad = path.join(TMP, 'bad-late.txt');
  writeFileSync(bad, [...words, 'a'.repeat(2000)].join('\n'));
  const r = sh(`"$CLI" translate --model ${MODEL('g2p-en')} --batch-file ${bad} --json`);
  assert.equal(r.code, 1);
  assert.equal(r.out.trimEnd().split('\n').length, 4096, 'the windows before the bad line were printed');
  assert.match(r.err, /bad-late\.txt line 5001: /);

  // Peak memory (VmHWM, read from /proc while it runs) for 8,192 and 40,960 lines: flat, not 5x.
  const peak = async (n) => {
    const f = path.join(TMP, `many-${n}.txt`);
    writeFileSync(f, Array.from({ length: n }, (_, i) => words[i % words.length]).join('\n'));
    const c = spawn(NATIVE_CLI, ['translate', '--model', MODEL('g2p-en'), '--json', '--batch-file', f], { stdio: ['ignore', 'ignore', 'pipe'] });
    let hwm = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${c.pid}/status`, 'utf8'));
        if (m) hwm = Math.max(hwm, Number(m[1]));
      } catch { /* it has ended */ }
    }, 10);
    const status = await new Promise((resolve) => c.on('close', resolve));
    clearInterval(poll);
    assert.equal(status, 0);
    assert.ok(hwm > 0, 'the peak was read');
    return hwm;
  };
  const small = await peak(8192), large = await peak(40960);
  assert.ok(large < small * 1.3, `peak memory ${small} kB for 8,192 lines, ${large} kB for 40,960: it must not grow with the input`);
});

test('messages write numbers as people do: a length penalty of -3e38 is -3e+38, not 39 digits', () => {
  // A value outside the decode options' table's range is a usage error naming the flag (exit 2).
  cliUsage(['translate', '--model', MODEL('reverse'), '--length-penalty', '-3e38', 'abc'],
    '--length-penalty is -3e+38; it must be in [0, 10]');
});
