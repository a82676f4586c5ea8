// What `npx attnseq` reads: input lines as a stream (standard input or a --batch-file), standard input
// that is closed or a directory, and arguments that were not valid UTF-8. The rules are the engine's
// (invalid UTF-8 named by its byte offset, src/model/vocab.cpp) and the native CLI's
// (src/cli/translate.cpp, batch_lines): a leading BOM dropped, LF, CRLF or CR ending a line, blank
// lines skipped.
import { fstatSync, readFileSync, readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { AttnseqError } from '../wasm/attnseq.js';

/** Byte offset of the first invalid UTF-8 sequence, or -1; the engine's rules (src/model/vocab.cpp). */
export function invalidUtf8At(b) {
  for (let i = 0; i < b.length;) {
    const c = b[i];
    if (c < 0x80) { i++; continue; }
    const n = (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 0;
    if (n === 0 || i + n > b.length) return i;
    let cp = c & (0x7f >> n);
    for (let k = 1; k < n; k++) {
      if ((b[i + k] & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (b[i + k] & 0x3f);
    }
    if (cp < [0, 0, 0x80, 0x800, 0x10000][n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n;
  }
  return -1;
}

/**
 * Why standard input cannot be read, or null. Node reads a directory as an empty stream, and it
 * reopens a closed fd 0 as /dev/null before any script runs, read-write, where a shell's `< /dev/null`
 * opens it read-only: on Linux, /proc tells the two apart (elsewhere a closed stdin reads as empty).
 */
export function stdinProblem() {
  let st;
  try {
    st = fstatSync(0);
  } catch (e) {
    return e.message;
  }
  if (st.isDirectory()) return 'it is a directory';
  if (process.platform === 'linux' && st.isCharacterDevice()) {
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/0', 'utf8'));
      if (readlinkSync('/proc/self/fd/0') === '/dev/null' && flags && (parseInt(flags[1], 8) & 3) === 2) return 'it is closed';
    } catch { /* no /proc: nothing more to tell */ }
  }
  return null;
}

/** A readable stream of standard input or of FILE; LOAD_FAILED (naming it) when it cannot be read. */
export async function openInput(file) {
  if (file === '-') {
    const why = stdinProblem();
    if (why) throw new AttnseqError('LOAD_FAILED', `cannot read standard input: ${why}`);
    return process.stdin;
  }
  let fh;
  try {
    fh = await open(file, 'r');
    if ((await fh.stat()).isDirectory()) throw new Error('it is a directory');
  } catch (e) {
    await fh?.close();
    throw new AttnseqError('LOAD_FAILED', `cannot open '${file}': ${e.message}`);
  }
  return fh.createReadStream();
}

const LF = 0x0a, CR = 0x0d;
const MAX_LINE = 1 << 24;  // far beyond the engine's limit on a source, which names the line first

/**
 * The non-blank lines of a byte stream, as they arrive: { text, line } with line numbers from 1
 * (blank lines counted). Only the line being read is held. Invalid UTF-8 is refused naming its byte
 * offset in the stream and its line, rather than replaced with U+FFFD. `name` names the input in errors.
 */
export async function* streamLines(stream, name) {
  let pending = Buffer.alloc(0);   // the bytes of the line being read
  let at = 0;                      // the stream offset of pending[0]
  let line = 1;
  const finish = (bytes, offset) => {
    if (offset === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) { bytes = bytes.subarray(3); offset = 3; }
    const bad = invalidUtf8At(bytes);
    if (bad >= 0) throw new AttnseqError('BAD_INPUT', `${name}: invalid UTF-8 at byte ${offset + bad} (line ${line})`);
    const text = bytes.toString('utf8');
    return text.trim() === '' ? null : { text, line };
  };
  let scan = 0;                    // where in pending the search for a line end goes on
  const split = function* (final) {
    let start = 0, i = scan;
    for (; i < pending.length; i++) {
      const b = pending[i];
      if (b !== LF && b !== CR) continue;
      if (b === CR && i + 1 === pending.length && !final) break;  // CRLF may straddle two chunks
      const l = finish(pending.subarray(start, i), at + start);
      line++;
      if (b === CR && pending[i + 1] === LF) i++;
      start = i + 1;
      if (l) yield l;
    }
    pending = pending.subarray(start);
    at += start;
    scan = i - start;
    // A line without an end is held whole: bounded, so that endless input (/dev/zero) is refused.
    if (pending.length > MAX_LINE)
      throw new AttnseqError('BAD_INPUT', `${name} line ${line}: more than ${MAX_LINE} bytes without a line end`);
  };
  try {
    for await (const chunk of stream) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      yield* split(false);
    }
  } catch (e) {
    if (e instanceof AttnseqError) throw e;
    throw new AttnseqError('LOAD_FAILED', `cannot read ${name}: ${e.message}`);
  }
  yield* split(true);
  if (pending.length) {
    const l = finish(pending, at);
    if (l) yield l;
  }
}

/**
 * Refuses arguments that were not valid UTF-8. Node decodes arguments as UTF-8 and replaces an invalid
 * byte with U+FFFD, so only an argument holding U+FFFD can have had one: it is checked against its
 * raw bytes, the process's own command line in /proc/self/cmdline (Linux). Where that cannot be read,
 * or does not match the arguments, a U+FFFD in an argument is refused too, as it cannot be told apart
 * from a replaced byte. args: process.argv.slice(2).
 */
export function checkArgsUtf8(args) {
  if (!args.some((a) => a.includes('\ufffd'))) return;
  const raw = rawArgs(args);
  args.forEach((a, i) => {
    if (!a.includes('\ufffd')) return;
    if (!raw) throw new AttnseqError('BAD_INPUT', `argument ${i + 1} holds U+FFFD, which is what invalid UTF-8 becomes, and its bytes cannot be read here to tell`);
    const bad = invalidUtf8At(raw[i]);
    if (bad >= 0) throw new AttnseqError('BAD_INPUT', `argument ${i + 1} is not valid UTF-8 (byte ${bad})`);
  });
}

/** The raw bytes of the script's arguments (the last entries of /proc/self/cmdline), or null. */
function rawArgs(args) {
  let all;
  try {
    all = readFileSync('/proc/self/cmdline');
  } catch {
    return null;
  }
  const parts = [];
  for (let s = 0; s < all.length;) {
    let e = all.indexOf(0, s);
    if (e < 0) e = all.length;
    parts.push(all.subarray(s, e));
    s = e + 1;
  }
  if (parts.length < args.length) return null;
  const raw = parts.slice(parts.length - args.length);
  return raw.every((b, i) => b.toString('utf8') === args[i]) ? raw : null;
}
