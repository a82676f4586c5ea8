#!/usr/bin/env node
// attnseq command line (the npm package's `bin`): `translate` decodes a source with a checkpoint and
// prints the translation plus the alignment as a terminal heatmap (viridis 24-bit colour on a TTY,
// shade characters otherwise) or as JSON; `info` describes a checkpoint. Everything model-related is
// the public JS API (../wasm/attnseq.js); this file only parses arguments and lays out text.
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import os from 'node:os';
import { loadModel, createPool, createEnsemble, decodeOptions, parseLexicon, lookUp, MAX_WORKERS, AttnseqError } from '../wasm/attnseq.js';
// The package's one viridis table, shared with the demo page (the package ships it next to attnseq.js).
import { viridis } from '../wasm/colormap.js';
import { checkArgsUtf8, openInput, streamLines } from './input.js';

// Options each command accepts: long name -> { value: the value's name (absent for a switch), short:
// alias, default: the value the parser uses when the option is absent, repeat: may be given more than
// once (its values collected in an array; any other option given twice is refused), help: lines for
// --help }. The parser, the defaults and the help text all read this table.
const OPTIONS = {
  translate: {
    model: { value: 'FILE', short: 'm', repeat: true, help: ['.safetensors checkpoint (a path, or an http(s) URL);', 'again for an ensemble (the models decode together)'] },
    prefix: { value: 'TEXT', help: ['force the first target tokens (ids like 5,6 for an ids-only model)'] },
    ids: { value: '5,17,42', help: ['the source as token ids instead of TEXT'] },
    lexicon: { value: 'FILE', help: ['WORD<TAB>PRONUNCIATION lines: a source that is one of its', 'words is answered from it (no alignment)'] },
    'batch-file': { value: 'FILE', help: ['translate every non-blank line of FILE (- = stdin) in batches', 'as it is read (model.translateStream), each printed as TEXT would be'] },
    threads: { value: 'N', help: ['with --batch-file: Workers sharing the lines (createPool;', `default every core, at most ${MAX_WORKERS}; 1 = this thread only)`] },
    'replace-unknowns': { help: ['replace each emitted <unk> by its most-attended source token'] },
    json: { help: ['one JSON object per source: {text, tokens, srcTokens, tgtTokens,', 'attention (rows; null for style \'none\'), score, hypotheses}'] },
    quiet: { short: 'q', help: ['print only the translation(s), one per line'] },
    color: { help: ['force the heatmap colours on (default: on for a terminal,', 'unless NO_COLOR is set or TERM=dumb)'] },
    'no-color': { help: ['force the heatmap colours off'] },
    help: { short: 'h', help: ['this text'] },
  },
  info: {
    model: { value: 'FILE', short: 'm', help: ['.safetensors checkpoint (a path, or an http(s) URL)'] },
    json: { help: ['the configuration as one JSON object'] },
    help: { short: 'h', help: ['this text'] },
  },
};

// The decode options (--beam, --length-penalty, ...) are the engine's table's (decodeOptions(), scope
// 'one'), added to translate's after --model when the command line starts (addDecodeOptions), with
// these short names.
const DECODE_SHORT = { '--beam': 'b', '--num-hypotheses': 'n' };

async function addDecodeOptions() {
  const rows = (await decodeOptions()).filter((r) => r.flag !== '' && r.scope.includes('one'));
  const { model, ...rest } = OPTIONS.translate;
  const decode = {};
  for (const r of rows) {
    decode[r.flag.slice(2)] = {
      value: r.metavar, short: DECODE_SHORT[r.flag], default: r.note ? undefined : String(r.default),
      help: [r.note ? `${r.help} (${r.note})` : r.help], row: r,
    };
  }
  OPTIONS.translate = { model, ...decode, ...rest };
}

/** One command's options as help lines: "  -b, --beam K   help (default 1)". */
function optionLines(command) {
  const lines = [];
  for (const [name, o] of Object.entries(OPTIONS[command])) {
    const left = `  ${o.short ? `-${o.short}, ` : '    '}--${name}${o.value ? ` ${o.value}` : ''}`;
    const help = [...o.help];
    if (o.default !== undefined) help[help.length - 1] += ` (default ${o.default})`;
    help.forEach((h, i) => lines.push(`${(i ? '' : left).padEnd(28)}${h}`));
  }
  return lines.join('\n');
}

const usage = () => `usage:
  attnseq translate --model FILE [options] TEXT      (or --ids 5,17,42; or --batch-file FILE; or lines on stdin)
  attnseq info --model FILE [--json]
  attnseq --help | --version

translate options:
${optionLines('translate')}

info options:
${optionLines('info')}

TEXT may be several arguments (joined by spaces); TEXT that starts with '-' goes after '--'. Short
options group and take attached values (-qb3). Without TEXT or --ids, stdin is read to its end as
UTF-8 (invalid bytes are an error; a leading BOM is dropped) and each non-blank line (LF, CRLF or
CR) is translated. --batch-file FILE reads FILE (- for stdin) the same way, names the line of a bad
input, and translates a window of lines at a time, printing each window's results as it ends:
faster for many inputs, the same output, bounded memory. For an
ids-only model, TEXT (or a line) like "4 5 6" or "4,5,6" is read as ids.
Exit status: 0 ok, 1 error ("attnseq: CODE: message" on stderr), 2 usage error.`;

class UsageError extends Error {}

/** argv (after the command) -> { opts, positional }; throws UsageError for anything unknown. */
function parseArgs(command, argv) {
  const table = OPTIONS[command];
  const shorts = Object.fromEntries(Object.entries(table).filter(([, o]) => o.short).map(([k, o]) => [o.short, k]));
  const opts = {}, positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { positional.push(...argv.slice(i + 1)); break; }
    let name, inline;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      inline = eq < 0 ? undefined : a.slice(eq + 1);
      if (!Object.hasOwn(table, name)) throw new UsageError(`unknown option '--${name}' for '${command}'`);
    } else if (/^-[^-\d.]/.test(a)) {
      // Short options, getopt style: flags may be grouped (-qh), a value may be attached (-b3) or
      // follow (-b 3). Text that starts with '-' (other than a number) goes after `--`.
      let j = 1;
      for (; j < a.length; j++) {
        name = shorts[a[j]];
        if (!name) throw new UsageError(`unknown option '-${a[j]}'${a.length > 2 ? ` (in '${a}')` : ''} for '${command}'`);
        if (table[name].value) break;
        if (Object.hasOwn(opts, name)) throw new UsageError(`--${name} is given twice`);
        opts[name] = true;
      }
      if (j === a.length) continue;
      if (j + 1 < a.length) inline = a.slice(j + 1);
    } else {
      positional.push(a);
      continue;
    }
    // A repeated option would silently lose one of its values (as the native command line says).
    if (Object.hasOwn(opts, name) && !table[name].repeat) throw new UsageError(`--${name} is given twice`);
    if (table[name].value) {
      if (inline === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
        inline = argv[++i];
      }
      if (table[name].repeat) (opts[name] ??= []).push(inline);
      else opts[name] = inline;
    } else {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      opts[name] = true;
    }
  }
  return { opts, positional };
}

function intOpt(opts, name, min) {
  if (opts[name] === undefined) return undefined;
  const s = opts[name].trim();
  if (!/^[+-]?\d+$/.test(s)) throw new UsageError(`--${name} expects an integer, got '${opts[name]}'`);
  const v = Number(s);
  if (!Number.isSafeInteger(v) || v < min) throw new UsageError(`--${name} must be an integer >= ${min}, got '${opts[name]}'`);
  return v;
}

function numOpt(opts, name, min = -Infinity) {
  if (opts[name] === undefined) return undefined;
  const s = opts[name].trim();
  const v = s === '' ? NaN : Number(s);
  if (!Number.isFinite(v)) throw new UsageError(`--${name} expects a number, got '${opts[name]}'`);
  if (v < min) throw new UsageError(`--${name} must be >= ${min}, got '${opts[name]}'`);
  return v;
}

const ID_LIST = /^\s*\d+(?:\s*[,\s]\s*\d+)*\s*$/;
function parseIds(s, what) {
  if (!ID_LIST.test(s)) throw new UsageError(`${what} expects token ids like 5,17,42, got '${s}'`);
  return s.trim().split(/[\s,]+/).map(Number);
}

// ---------------------------------------------------------------------------------------------------
// Text layout: display widths, sanitising, the heatmap (its colours are wasm/colormap.js).

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff\u200b]$/u;
// East Asian Wide / Fullwidth ranges (approximate, the ones that matter in practice) plus emoji.
const WIDE = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3041, 0x33ff],
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf], [0xa960, 0xa97f], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];
const EMOJI = /^\p{Emoji_Presentation}$/u;

function charWidth(ch) {
  const cp = ch.codePointAt(0);
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  for (const [a, b] of WIDE) if (cp >= a && cp <= b) return 2;
  return EMOJI.test(ch) ? 2 : 1;
}

/** Terminal columns a string occupies (East Asian wide = 2, combining marks = 0). */
function strWidth(s) {
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

const segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
function graphemes(s) {
  return segmenter ? Array.from(segmenter.segment(s), (g) => g.segment) : Array.from(s);
}

/** A token as a label: control characters made visible (a checkpoint must not drive the terminal). */
function visible(s) {
  if (s === '') return '∅';
  return s
    .replace(/ /g, '␣').replace(/\t/g, '⇥').replace(/\r?\n/g, '↵')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
/** Free text for the terminal: only control characters are escaped. */
function printable(s) {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
/** One line of text from a file (a name, a metadata key or value): every control character escaped. */
function oneLine(s) {
  return String(s).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
/**
 * A JSON line for the terminal: JSON.stringify escapes U+0000-U+001F but leaves DEL and the C1
 * controls (U+0080-U+009F, CSI among them) raw; \u escapes keep the JSON the same.
 */
function jsonLine(v) {
  return JSON.stringify(v).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
}

function truncate(s, width) {
  if (strWidth(s) <= width) return s;
  let out = '', w = 0;
  for (const g of graphemes(s)) {
    const gw = strWidth(g);
    if (w + gw > width - 1) break;
    out += g;
    w += gw;
  }
  return out + '…';
}
const padEnd = (s, width) => s + ' '.repeat(Math.max(0, width - strWidth(s)));
const padStart = (s, width) => ' '.repeat(Math.max(0, width - strWidth(s))) + s;
function center(s, width) {
  const free = Math.max(0, width - strWidth(s));
  return ' '.repeat(free >> 1) + s + ' '.repeat(free - (free >> 1));
}

const SHADES = [' ', '░', '▒', '▓', '█'];
const shadeOf = (v) => SHADES[Math.min(4, Math.max(0, Math.floor((Number.isFinite(v) ? v : 0) * 5)))];

/** A weight in 3 columns: ".83", ".05", "1.0". */
function fmtWeight(v) {
  if (!Number.isFinite(v)) return ' ? ';
  if (v >= 0.995) return '1.0';
  return '.' + String(Math.max(0, Math.round(v * 100))).padStart(2, '0');
}

function cell(v, color) {
  const text = fmtWeight(v);
  if (!color) return shadeOf(v) + shadeOf(v) + text + ' ';
  const [r, g, b] = viridis(v);
  const dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 140;
  const fg = dark ? '255;255;255' : '0;0;0';
  return `\x1b[48;2;${r};${g};${b}m\x1b[38;2;${fg}m ${text} \x1b[0m`;
}

/**
 * The alignment heatmap as lines: rows = target tokens, columns = source tokens, one cell per weight.
 * Source labels go across when they fit a cell, down the column when short, else as numbers with a
 * legend. Columns that do not fit `width` continue in further blocks.
 */
function heatmap({ srcTokens, tgtTokens, attention, cols }, { color = false, width = 100 } = {}) {
  const cellW = color ? 5 : 6;                        // " .83 " on a colour, or "▓▓.83 "
  const src = srcTokens.map(visible);
  const rowLabels = tgtTokens.map((t) => truncate(visible(t), 16));
  const labelW = Math.max(1, ...rowLabels.map(strWidth));
  const lead = labelW + 2;
  const maxSrcW = Math.max(0, ...src.map(strWidth));
  const srcGraphemes = src.map(graphemes);
  let mode = 'across';
  if (maxSrcW > 4) {
    const fitsDown = srcGraphemes.every((gs) => gs.length <= 8 && gs.every((g) => strWidth(g) <= 4));
    mode = fitsDown ? 'down' : 'numbered';
  }
  const perBlock = Math.max(1, Math.floor((Math.max(width, 40) - lead) / cellW));
  const lines = [];
  for (let c0 = 0; c0 < cols; c0 += perBlock) {
    const c1 = Math.min(cols, c0 + perBlock);
    if (c0 > 0) lines.push('');
    // Labels are centred over the 5 columns a cell paints (the shade cell's 6th is a gap).
    const head = (f) => (' '.repeat(lead) + Array.from({ length: c1 - c0 }, (_, j) => padEnd(center(f(c0 + j), 5), cellW)).join('')).trimEnd();
    if (mode === 'across') lines.push(head((t) => src[t]));
    else if (mode === 'numbered') lines.push(head((t) => String(t + 1)));
    else {
      const depth = Math.max(...srcGraphemes.slice(c0, c1).map((g) => g.length));
      for (let d = 0; d < depth; d++) lines.push(head((t) => srcGraphemes[t][d] ?? ''));
    }
    for (let k = 0; k < tgtTokens.length; k++) {
      let line = ' ' + padEnd(rowLabels[k], labelW) + ' ';
      for (let t = c0; t < c1; t++) line += cell(attention[k * cols + t], color);
      lines.push(color ? line : line.trimEnd());
    }
  }
  if (mode === 'numbered') {
    const items = src.map((s, t) => `${t + 1} ${truncate(s, 30)}`);
    let line = ' source:';
    for (const it of items) {
      if (strWidth(line) + 2 + strWidth(it) > Math.max(width, 40) && line !== ' source:') { lines.push(line); line = '        '; }
      line += '  ' + it;
    }
    lines.push(line);
  }
  lines.push(legend(color));
  return lines;
}

function legend(color) {
  if (!color) return ' weights: " " <.2  ░ <.4  ▒ <.6  ▓ <.8  █ ≥.8  (each row sums to 1)';
  let bar = '';
  for (let i = 0; i < 20; i++) {
    const [r, g, b] = viridis(i / 19);
    bar += `\x1b[48;2;${r};${g};${b}m \x1b[0m`;
  }
  return ` weights: 0 ${bar} 1  (viridis; each row sums to 1)`;
}

// ---------------------------------------------------------------------------------------------------
// Commands.

function useColor(opts, env, stream) {
  if (opts['no-color']) return false;
  if (opts.color) return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return !!stream.isTTY;
}

function rowsOf(attention, rows, cols) {
  const out = [];
  for (let k = 0; k < rows; k++) out.push(Array.from(attention.subarray(k * cols, (k + 1) * cols)));
  return out;
}

// The --json object: one schema for both command lines (README.md, "Command line"), which
// src/cli/translate.cpp prints with the same keys in the same order. `tokens` are ids (as in the API),
// `tgtTokens` their strings; `attention` is a list of rows, or null for a style 'none' model.
function toJSON(r, hasAttention, srcIds) {
  return {
    text: r.text, tokens: r.tokens, srcIds: Array.from(srcIds), srcTokens: r.srcTokens, tgtTokens: r.tgtTokens,
    attention: hasAttention ? rowsOf(r.attention, r.rows, r.cols) : null,
    // An ensemble's: each member's own attention for the best hypothesis.
    ...(r.memberAttention ? { memberAttention: r.memberAttention.map((a) => rowsOf(a, r.rows, r.cols)) } : {}),
    rows: r.rows, cols: r.cols,
    words: r.words && {
      source: r.words.source, target: r.words.target, sourceSpans: r.words.sourceSpans, targetSpans: r.words.targetSpans,
      attention: hasAttention ? rowsOf(r.words.attention, r.words.rows, r.words.cols) : null,
    },
    score: r.score,
    hypotheses: r.hypotheses.map((h) => ({
      text: h.text, tokens: h.tokens, tgtTokens: h.tgtTokens, score: h.score, logProb: h.logProb, finished: h.finished,
      attention: hasAttention ? rowsOf(h.attention, h.tokens.length, r.cols) : null,
    })),
  };
}

const fmtScore = (x) => (Number.isFinite(x) ? x.toFixed(4) : String(x));

function renderText(r, { model, options, color, width }) {
  const out = [printable(r.text)];
  const hyps = r.hypotheses;
  const dim = (s) => (color ? `\x1b[2m${s}\x1b[0m` : s);
  const note = (h) => (h.finished ? '' : '  (unfinished: reached the maximum length)');
  if (hyps.length > 1 || options.beam > 1) {
    out.push('', `beam ${options.beam}: ${hyps.length} hypothes${hyps.length === 1 ? 'is' : 'es'}, score = log p / length^${options.lengthPenalty}`);
    const nw = String(hyps.length).length;
    const sw = Math.max(...hyps.map((h) => fmtScore(h.score).length));
    hyps.forEach((h, i) => out.push(`  ${padStart(String(i + 1), nw)}  ${padStart(fmtScore(h.score), sw)}  ${printable(h.text)}${dim(note(h))}`));
  } else {
    const b = hyps[0];
    out.push(dim(`score ${fmtScore(b.score)}, log p ${fmtScore(b.logProb)}, ${b.tokens.length} tokens${note(b)}`));
  }
  out.push('');
  if (model.config.style === 'none') {
    out.push("no alignment: this model's style is 'none' (vanilla seq2seq without attention) - the decoder",
      "sees only the encoder's final state h_T, the same vector at every step.");
  } else {
    // A subword model's alignment is shown between words (a word's pieces merged; WordView in index.d.ts).
    const unit = r.words ? 'words' : 'tokens';
    out.push(`alignment${hyps.length > 1 ? ' of hypothesis 1' : ''} (rows: target ${unit}, columns: source ${unit})`);
    const view = r.words ? { srcTokens: r.words.source, tgtTokens: r.words.target, attention: r.words.attention, cols: r.words.cols } : r;
    out.push(...heatmap(view, { color, width }));
  }
  return out.join('\n') + '\n';
}

// An ids-only model has no vocabulary; "4 5 6" / "4,5,6" is then what the user means.
const sourceOf = (text, model) => (model.config.srcTokenizer === 'ids' && ID_LIST.test(text) ? parseIds(text, 'TEXT') : text);

async function sourcesFrom(opts, positional, model) {
  if (opts.ids !== undefined) {
    if (positional.length) throw new UsageError('give either --ids or TEXT, not both');
    return [parseIds(opts.ids, '--ids')];
  }
  let texts;
  if (positional.length) texts = [positional.join(' ')];
  else if (process.stdin.isTTY) throw new UsageError('no source: give TEXT, --ids, or lines on stdin');
  else {
    texts = [];
    for await (const l of streamLines(await openInput('-'), 'standard input')) texts.push(l.text);
    if (!texts.length) throw new UsageError('no source: stdin was empty');
  }
  return texts.map((t) => sourceOf(t, model));
}

/**
 * --batch-file FILE (- for stdin): its lines, read as a stream and translated a window at a time
 * (model.translateStream, or a pool's with threads > 1), each printed by print(result, i, srcIds) as
 * it is done, in order; an input the batch refuses ("inputs[k]: ...") is named by its line in the file.
 */
async function translateBatchFile(file, model, options, threads, modelSource, print) {
  const name = file === '-' ? 'standard input' : file;
  const lines = streamLines(await openInput(file), name);
  const waiting = [];  // { line, source } of each input read and not yet printed, oldest first
  const sources = (async function* () {
    for await (const l of lines) {
      const source = sourceOf(l.text, model);
      waiting.push({ line: l.line, source });
      yield source;
    }
  })();
  // A first window of inputs tells whether there are enough of them for every Worker.
  const first = [];
  let more = true;
  while (first.length < 256 * threads) {
    const r = await sources.next();
    if (r.done) { more = false; break; }
    first.push(r.value);
  }
  const all = (async function* () { yield* first; if (more) yield* sources; })();
  const workers = more ? threads : Math.min(threads, first.length);
  const pool = workers > 1 ? await createPool(modelSource, { workers }) : null;
  let i = 0;
  try {
    for await (const r of (pool ?? model).translateStream(all, options)) {
      const { source } = waiting.shift();
      await print(r, i++, () => (typeof source === 'string' ? model.tokenize(source).ids : source), source);
    }
  } catch (e) {
    if (e instanceof AttnseqError && e.index !== undefined) throw new AttnseqError(e.code, `${name} line ${waiting[e.index - i].line}: ${e.detail}`);
    throw e;
  } finally {
    pool?.dispose();
  }
}

/** A source's lexicon entry (the text trimmed, one word), or null. */
function lexiconEntry(lexicon, source) {
  const word = source.trim();
  return word === '' || /\s/.test(word) ? null : lookUp([lexicon], word);
}

/** Every core this process may use, at most a pool's MAX_WORKERS. */
const allCores = () => Math.min(MAX_WORKERS, os.availableParallelism?.() ?? os.cpus().length);

async function translate(opts, positional) {
  for (const [name, o] of Object.entries(OPTIONS.translate)) if (o.default !== undefined) opts[name] ??= o.default;
  const options = {};
  const set = (k, v) => { if (v !== undefined) options[k] = v; };
  for (const [name, o] of Object.entries(OPTIONS.translate)) {
    if (!o.row) continue;  // the decode options' rows: each checked against the engine's range
    const v = o.row.kind === 'integer' ? intOpt(opts, name, o.row.min) : numOpt(opts, name, o.row.min);
    if (v !== undefined && v > o.row.max) throw new UsageError(`--${name} must be at most ${o.row.max}, got '${opts[name]}'`);
    set(o.row.name, v);
  }
  if (opts['replace-unknowns']) options.replaceUnknowns = true;
  if ([opts['batch-file'] !== undefined, opts.ids !== undefined, positional.length > 0].filter(Boolean).length > 1)
    throw new UsageError('give one of --batch-file, --ids or TEXT');
  if (opts.threads !== undefined && opts['batch-file'] === undefined)
    throw new UsageError("--threads shares a --batch-file's lines among Workers; give it with --batch-file");
  const given = intOpt(opts, 'threads', 1);
  if (given > MAX_WORKERS) throw new UsageError(`--threads must be at most ${MAX_WORKERS}, got '${opts.threads}'`);
  // A pool of Workers holds one model: an ensemble's batch file runs on this thread.
  const ensemble = (opts.model?.length ?? 0) > 1;
  if (ensemble && given > 1)
    throw new UsageError('--threads with an ensemble: a pool of Workers holds one model; an ensemble runs on this thread');
  const threads = ensemble ? 1 : given ?? allCores();
  if (opts.color && opts['no-color']) throw new UsageError('give --color or --no-color, not both');
  if (opts.lexicon !== undefined && opts.ids !== undefined) throw new UsageError('--lexicon looks words up: give TEXT, not --ids');
  // Read and checked before any model is loaded: a malformed line names the file and the line.
  let lexicon = null;
  if (opts.lexicon !== undefined) {
    let text;
    try {
      text = readFileSync(opts.lexicon, 'utf8');
    } catch (e) {
      throw new AttnseqError('LOAD_FAILED', `cannot read the lexicon '${opts.lexicon}': ${e.code ?? e.message}`);
    }
    lexicon = parseLexicon(text, opts.lexicon);
  }
  const models = [];
  try {
    for (const m of opts.model ?? []) models.push(await loadModel(modelSource(m)));
    if (models.length === 0) throw new UsageError('--model FILE is required');
    const model = models[0];
    // Several --model: an ensemble (createEnsemble), which checks that the models share their vocabularies.
    const decoder = models.length > 1 ? createEnsemble(models) : model;
    if (opts.prefix !== undefined)
      options.prefix = model.config.tokenizer === 'ids' ? parseIds(opts.prefix, '--prefix') : opts.prefix;
    const color = useColor(opts, process.env, process.stdout);
    const width = process.stdout.columns || Number(process.env.COLUMNS) || 120;
    const print = (r, i, srcIds, source) => {
      // A source that is a word of the lexicon: its entry in the place of the model's answer (the
      // same lines and JSON as the native command line's).
      const prons = lexicon && typeof source === 'string' ? lexiconEntry(lexicon, source) : null;
      if (prons) {
        if (opts.json) return write(jsonLine({ text: prons[0], source: 'lexicon', lexicon: opts.lexicon, alternatives: prons }));
        if (opts.quiet) return write(printable(prons[0]) + '\n');
        const also = prons.length > 1 ? `; also ${prons.slice(1).join(', ')}` : '';
        return write(`${i ? '\n' : ''}${printable(prons[0])}\n\n(from the lexicon ${printable(opts.lexicon)}: an entry, with no alignment of its own${printable(also)})\n`);
      }
      return write(opts.json ? jsonLine(toJSON(r, model.config.style !== 'none', srcIds()))
        : opts.quiet ? printable(r.text) + '\n' : (i ? '\n' : '') + renderText(r, { model, options, color, width }));
    };
    if (opts['batch-file'] !== undefined) {
      await translateBatchFile(opts['batch-file'], decoder, options, threads, modelSource(opts.model[0]), print);
      return;
    }
    const sources = await sourcesFrom(opts, positional, model);
    // Each result is written when it is done; the yield lets a closed pipe (`| head`) end the run.
    for (const [i, src] of sources.entries()) {
      if (i) await new Promise((r) => setImmediate(r));
      if (decoder !== model) {  // an ensemble: each member encodes the source itself
        await print(decoder.translate(src, options), i, () => model.tokenize(src).ids, src);
        continue;
      }
      const enc = model.encode(src);
      try {
        await print(model.translate(enc, options), i, () => enc.ids, src);
      } finally {
        enc.dispose();
      }
    }
  } finally {
    for (const m of models) m.dispose();
  }
}

function modelSource(file) {
  if (file === undefined || file === '') throw new UsageError('--model FILE is required');
  return /^https?:\/\//i.test(file) ? file : resolve(file);
}

async function load(opts) {
  return loadModel(modelSource(opts.model));
}

async function info(opts, positional) {
  if (positional.length) throw new UsageError(`unexpected argument '${positional[0]}'`);
  const model = await load(opts);
  try {
    const c = model.config;
    if (opts.json) {
      process.stdout.write(jsonLine({ file: opts.model, ...c, srcVocab: model.srcVocab, tgtVocab: model.tgtVocab }));
      return;
    }
    let bytes = null;
    try { bytes = readFileSync(resolve(opts.model)).length; } catch { /* a URL */ }
    const yes = (b) => (b ? 'yes' : 'no');
    const attention = c.style === 'none' ? "none (vanilla: the decoder sees only the encoder's final state)"
      : `${c.style}, score ${c.score}${c.style === 'luong' ? `, input feeding ${yes(c.inputFeeding)}` : ''}${c.score === 'additive' ? `, size ${c.attentionSize}` : ''}`;
    const vocabLine = (v, n) => (v ? `${n} (${v.slice(0, 8).map(visible).join(' ')}${n > 8 ? ' …' : ''})` : `${n} ids`);
    const rows = [
      ['name', c.name === null ? '-' : oneLine(c.name)], ['task', c.task === null ? '-' : oneLine(c.task)],
      ...Object.entries(c.metadata).filter(([k]) => !['name', 'task', 'src_vocab', 'tgt_vocab'].includes(k)).map(([k, v]) => [oneLine(k), oneLine(v)]),
      ['file', oneLine(bytes === null ? opts.model : `${opts.model} (${bytes} bytes)`)],
      ['cell', `${c.cell}, ${c.layers} layer${c.layers > 1 ? 's' : ''}, ${c.bidirectional ? 'bidirectional' : 'unidirectional'} encoder, bridge ${yes(c.bridge)}`],
      ['attention', attention],
      ['tokenizer', c.tokenizer],
      ['source vocab', vocabLine(model.srcVocab, c.srcVocabSize)],
      ['target vocab', vocabLine(model.tgtVocab, c.tgtVocabSize)],
      ['embedding', `${c.srcEmbedding} (source), ${c.tgtEmbedding} (target)`],
      ['hidden', `${c.encoderHidden} (encoder, ${c.encoderOutput} out), ${c.hidden} (decoder)`],
      ['special ids', `pad ${c.pad}, bos ${c.bos}, eos ${c.eos}, unk ${c.unk}`],
      ['parameters', c.parameters.toLocaleString('en-US')],
    ];
    const w = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n') + '\n');
  } finally {
    model.dispose();
  }
}

function version() {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

async function main(argv) {
  await addDecodeOptions();
  checkArgsUtf8(argv);
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === '-h' || command === '--help' || command === 'help') { process.stdout.write(usage() + '\n'); return 0; }
  if (command === '-V' || command === '--version') { process.stdout.write(version() + '\n'); return 0; }
  if (!Object.hasOwn(OPTIONS, command)) throw new UsageError(`unknown command '${command}'`);
  const { opts, positional } = parseArgs(command, rest);
  if (opts.help) { process.stdout.write(usage() + '\n'); return 0; }
  await (command === 'translate' ? translate : info)(opts, positional);
  return 0;
}

/** Writes to standard output, waiting while a pipe is full (so that a long batch holds little). */
async function write(text) {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);    // `attnseq ... | head` is fine
  // Nothing more can be written (a full disk, /dev/full, a closed file): say so, and stop.
  process.stderr.write(`attnseq: WRITE_FAILED: cannot write to standard output: ${e.message}\n`);
  process.exit(1);
});

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`attnseq: USAGE: ${e.message}\n\n${usage()}\n`);
    process.exitCode = 2;
  } else {
    const code = e instanceof AttnseqError ? e.code : 'INTERNAL';
    process.stderr.write(`attnseq: ${code}: ${printable(e?.message ?? String(e))}\n`);
    if (!(e instanceof AttnseqError) && process.env.ATTNSEQ_DEBUG) process.stderr.write(`${e?.stack}\n`);
    process.exitCode = 1;
  }
}
