// What a newcomer types first, for both command lines (build/native/attnseq and bin/attnseq.js):
// --help and --version, and each command's --help, whose option list is checked against the parser
// (every listed flag is accepted, takes a value exactly when the help shows one, an unknown flag is
// refused) and whose printed defaults are checked against what the command does without the flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NATIVE = NATIVE_CLI;
const BIN = path.join(ROOT, 'bin/attnseq.js');
const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const GEN = path.join(ROOT, 'tests/data/parity/gru_luong_general.safetensors');
const SRC = 'w5 w6 w7 w8 w4';
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-cli-help-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const requireNative = requireNativeCli;
function requireDist() {
  try {
    accessSync(path.join(ROOT, 'dist/attnseq-core.mjs'));
  } catch {
    assert.fail('dist/attnseq-core.mjs is missing: run `bash scripts/build.sh` first');
  }
}
function run(cli, args) {
  const [file, argv] = cli === 'native' ? (requireNative(), [NATIVE, args]) : (requireDist(), [process.execPath, [BIN, ...args]]);
  const env = { ...process.env, NO_COLOR: '1' };
  const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60000, env });
  assert.equal(r.error, undefined, String(r.error));
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function ok(cli, args) {
  const r = run(cli, args);
  assert.equal(r.code, 0, `${cli} attnseq ${args.join(' ')}: exit ${r.code}; stderr: ${r.err}`);
  assert.equal(r.err, '', `${cli} attnseq ${args.join(' ')}: nothing on stderr`);
  return r.out;
}

/**
 * The options a help text lists: lines like "  --beam K   help (default 1)" or, in the JS CLI,
 * "  -b, --beam K   ...". -> Map flag -> { short, value, def } (def: undefined when none is printed).
 */
function optionsOf(text) {
  const opts = new Map();
  for (const line of text.split('\n')) {
    const m = /^ {2}(?:-(\w), | {4})?(--[a-z][\w-]*)(?: (\S+))? {2,}(.*)$/.exec(line);
    if (!m) continue;
    const [short, flag, value, help] = m.slice(1);
    const def = /\(default ([^):]+)\)/.exec(help)?.[1];
    opts.set(flag, { short, value, def });
  }
  return opts;
}

// For the JS CLI the options of one command are the lines under "COMMAND options:".
function jsSection(help, command) {
  const start = help.indexOf(`\n${command} options:\n`);
  assert.ok(start >= 0, `the help has a "${command} options:" section`);
  const rest = help.slice(start + command.length + 11);
  return rest.slice(0, rest.search(/\n\n|$/));
}

test('--help and --version, both CLIs: exit 0 on stdout; unknown commands exit 2 with the usage on stderr', () => {
  for (const cli of ['native', 'js']) {
    for (const flag of ['--help', '-h']) {
      const out = ok(cli, [flag]);
      assert.match(out, /^usage:/, `${cli} ${flag}`);
      for (const command of ['translate', 'info']) assert.match(out, new RegExp(`attnseq ${command} `), `${cli} ${flag}`);
    }
    assert.equal(ok(cli, ['--version']), `${VERSION}\n`, `${cli} --version is package.json's version`);
    const bad = run(cli, ['frobnicate']);
    assert.equal(bad.code, 2, `${cli}: unknown command`);
    assert.equal(bad.out, '');
    assert.match(bad.err, /frobnicate/);
    assert.match(bad.err, /usage:/);
  }
  const native = ok('native', ['--help']);
  for (const command of ['train', 'eval']) assert.match(native, new RegExp(`attnseq ${command} `));
  assert.match(native, /attnseq COMMAND --help/, 'the overview points at the per-command help');
});

// Every flag a command's help lists is accepted by its parser, takes a value exactly when the help
// names one, and every flag the overview's synopsis names for the command is listed.
function checkFlags(cli, command, opts, synopsisFlags) {
  const what = (a) => `${cli} attnseq ${command} ${a.join(' ')}`;
  assert.ok(opts.has('--help'), `${cli} ${command} --help lists --help`);
  for (const f of synopsisFlags) assert.ok(opts.has(f), `${cli} ${command} --help lists ${f} (named in the overview)`);
  for (const [flag, o] of opts) {
    if (flag === '--help') continue;
    // Given a value where it takes one, the flag is never refused as unknown (the command then
    // fails for want of a model, a task or an output, or on the value "x", which is fine).
    const given = run(cli, [command, flag, ...(o.value ? ['x'] : [])]);
    assert.doesNotMatch(given.err, /unknown option/, what([flag]));
    const alone = run(cli, [command, flag]);
    if (o.value) assert.match(alone.err, new RegExp(`${flag} needs a value`), `${what([flag])}: the help shows a value`);
    else assert.doesNotMatch(alone.err, /needs a value/, `${what([flag])}: the help shows no value`);
    if (o.short) assert.doesNotMatch(run(cli, [command, `-${o.short}`, ...(o.value ? ['x'] : [])]).err, /unknown option/, what([`-${o.short}`]));
  }
  const unknown = run(cli, [command, '--frobnicate', 'x']);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.err, /unknown option '?--frobnicate/, what(['--frobnicate']));
}

// The flags the overview's synopsis gives for one native command (its line and continuation lines).
function synopsisFlags(overview, command) {
  const lines = overview.split('\n');
  const i = lines.findIndex((l) => l.includes(`attnseq ${command} `));
  const block = [lines[i]];
  for (let j = i + 1; j < lines.length && /^ {20,}/.test(lines[j]); j++) block.push(lines[j]);
  return [...new Set(block.join(' ').match(/--[a-z][\w-]*/g))];
}

test('native: each command --help lists every flag its parser accepts, with defaults', () => {
  const overview = ok('native', ['--help']);
  for (const command of ['translate', 'info', 'train', 'eval', 'quantize']) {
    const help = ok('native', [command, '--help']);
    assert.match(help, new RegExp(`^usage: attnseq ${command} `));
    const opts = optionsOf(help);
    checkFlags('native', command, opts, synopsisFlags(overview, command));
    // --help wins over everything else on the line, even a missing --model (a missing --in).
    const file = { train: '--out', quantize: '--in' }[command] ?? '--model';
    assert.equal(ok('native', [command, file, 'missing', '--help']), help);
  }
});

test('native: the defaults --help prints are what the commands do without the flag', () => {
  const t = optionsOf(ok('native', ['translate', '--help']));
  assert.equal(t.get('--beam').def, '1');
  const hyps = (args) => JSON.parse(ok('native', ['translate', '--model', GEN, '--json', ...args, SRC])).hypotheses;
  assert.equal(hyps([]).length, Number(t.get('--beam').def), 'translate without --beam: as many hypotheses as the default beam');
  assert.equal(hyps(['--beam', '3']).length, 3);
  assert.deepEqual(hyps(['--beam', '3']), hyps(['--beam', '3', '--length-penalty', t.get('--length-penalty').def]));
  assert.notDeepEqual(hyps(['--beam', '3']).map((h) => h.score), hyps(['--beam', '3', '--length-penalty', '0']).map((h) => h.score));
  assert.deepEqual(hyps(['--temperature', '1']), hyps(['--temperature', '1', '--seed', t.get('--seed').def]));

  // eval states n, seed and beam in its first line.
  const e = optionsOf(ok('native', ['eval', '--help']));
  const first = ok('native', ['eval', '--model', path.join(ROOT, 'models/dates.safetensors'), '--task', 'dates', '--n', '50']).split('\n')[0];
  assert.equal(first, `task dates, 50 held-out examples (seed ${e.get('--seed').def}), beam ${e.get('--beam').def}`);
  assert.match(e.get('--n').def, /^\d+$/);

  // One training step with every architecture option left out; info shows what was built.
  const tr = optionsOf(ok('native', ['train', '--help']));
  const out = path.join(TMP, 'defaults.safetensors');
  ok('native', ['train', '--task', 'copy', '--steps', '1', '--threads', '1', '--quiet', '--out', out]);
  const info = ok('native', ['info', '--model', out]);
  const d = (f) => tr.get(f).def;
  assert.match(info, new RegExp(`^cell ${d('--cell')}, style ${d('--style')}, score ${d('--score')}, .*layers ${d('--layers')}$`, 'm'));
  assert.match(info, new RegExp(`hidden ${d('--hidden')}/${d('--hidden')}, attn_dim \\d+, tokenizer`));
  assert.match(info, new RegExp(`embedding ${d('--hidden')}/${d('--hidden')}`), '--embedding defaults to --hidden');
  assert.match(info, new RegExp(`^name: copy-${d('--style')}-${d('--score')}$`, 'm'));
});

test('npx attnseq: each command --help lists every flag its parser accepts, with defaults that hold', () => {
  for (const command of ['translate', 'info']) {
    const help = ok('js', [command, '--help']);
    assert.equal(ok('js', [command, '-h']), help);
    const opts = optionsOf(jsSection(help, command));
    assert.ok(opts.size >= 3, `${command}: options found in the help`);
    const synopsis = new RegExp(`^ {2}attnseq ${command} .*$`, 'm').exec(help)[0].match(/--[a-z][\w-]*/g);
    checkFlags('js', command, opts, synopsis);
  }
  const t = optionsOf(jsSection(ok('js', ['--help']), 'translate'));
  assert.equal(t.get('--beam').def, '1');
  assert.equal(t.get('--beam').short, 'b');
  const json = (args) => JSON.parse(ok('js', ['translate', '-m', GEN, '--json', ...args, SRC]));
  assert.equal(json([]).hypotheses.length, Number(t.get('--beam').def), 'translate without --beam: as many hypotheses as the default beam');
  assert.equal(json(['-b', '3']).hypotheses.length, 3);
  assert.deepEqual(json(['--temperature', '1']), json(['--temperature', '1', '--seed', t.get('--seed').def]));
  // The beam listing names the length penalty it ranked with.
  const text = ok('js', ['translate', '-m', GEN, '--beam', '3', SRC]);
  assert.match(text, new RegExp(`score = log p / length\\^${t.get('--length-penalty').def}\\n`));
  assert.deepEqual(json(['-b', '3']), json(['-b', '3', '--length-penalty', t.get('--length-penalty').def]));
});
