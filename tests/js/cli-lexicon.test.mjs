// `translate --lexicon FILE` in both command lines (bin/attnseq.js and the native build/native/attnseq):
// a source that is a lexicon word is answered from the lexicon, the same lines and JSON in both, on
// words and on batch files; other sources are the model's, unchanged; a malformed lexicon is refused
// naming the file and the line; `eval` scores the model alone and says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';

const G2P = fileURLToPath(new URL('../../models/g2p-en.safetensors', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/attnseq.js', import.meta.url));
let dir, lex;
before(() => {
  requireNativeCli();
  dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-lexicon-'));
  lex = path.join(dir, 'mine.tsv');
  writeFileSync(lex, 'COLONEL\tK ER N AH L\nCOLONEL\tK ER N L\r\n\nof\tAH V\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (which, args, input) => {
  const r = which === 'npm'
    ? spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input })
    : spawnSync(NATIVE_CLI, args, { encoding: 'utf8', input });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const both = (args, input) => ['npm', 'native'].map((w) => run(w, args, input));

test('a lexicon word is answered from the lexicon, the same in both command lines; other words are the model\'s', () => {
  const plain = both(['translate', '--model', G2P, '--json', 'knight']);
  for (const [args, want] of [
    [['Colonel'], { text: 'K ER N AH L', source: 'lexicon', lexicon: lex, alternatives: ['K ER N AH L', 'K ER N L'] }],
    [['OF'], { text: 'AH V', source: 'lexicon', lexicon: lex, alternatives: ['AH V'] }],
  ]) {
    const [npm, native] = both(['translate', '--model', G2P, '--lexicon', lex, '--json', ...args]);
    assert.equal(npm.code, 0, npm.err);
    assert.equal(native.code, 0, native.err);
    assert.deepEqual(JSON.parse(npm.out), want);
    assert.equal(native.out, npm.out);
  }
  // Not in the lexicon: the model's answer, as without one.
  const withLex = both(['translate', '--model', G2P, '--lexicon', lex, '--json', 'knight']);
  assert.equal(withLex[0].out, plain[0].out);
  assert.equal(withLex[1].out, plain[1].out);
  // The text form names the lexicon and says there is no alignment.
  const [t1, t2] = both(['translate', '--model', G2P, '--lexicon', lex, 'colonel']);
  assert.equal(t1.out, `K ER N AH L\n\n(from the lexicon ${lex}: an entry, with no alignment of its own; also K ER N L)\n`);
  assert.equal(t2.out, t1.out);
});

test('a batch file: each line that is a lexicon word from the lexicon, the others from the model, in order', () => {
  const input = 'colonel\nknight\nof\n';
  const [npm, native] = both(['translate', '--model', G2P, '--lexicon', lex, '--batch-file', '-', '--json'], input);
  assert.equal(npm.code, 0, npm.err);
  const lines = npm.out.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.source ?? 'model'), ['lexicon', 'model', 'lexicon']);
  assert.equal(lines[1].text, JSON.parse(run('npm', ['translate', '--model', G2P, '--json', 'knight']).out).text);
  // (The native line writes floats with fewer digits: the texts and sources are compared.)
  const brief = (l) => ({ text: l.text, source: l.source ?? 'model', alternatives: l.alternatives });
  assert.deepEqual(native.out.trim().split('\n').map((l) => brief(JSON.parse(l))), lines.map(brief));
});

test('a malformed or missing lexicon is refused naming it; --lexicon with --ids is a usage error', () => {
  const bad = path.join(dir, 'bad.tsv');
  writeFileSync(bad, 'GOOD\tG UH D\nNO TAB HERE\n');
  for (const r of both(['translate', '--model', G2P, '--lexicon', bad, 'good'])) {
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`${bad.replace(/[.]/g, '\\.')}:2: no tab`));
    assert.equal(r.out, '');
  }
  for (const r of both(['translate', '--model', G2P, '--lexicon', path.join(dir, 'none.tsv'), 'good'])) {
    assert.equal(r.code, 1);
    assert.match(r.err, /none\.tsv/);
  }
  for (const r of both(['translate', '--model', G2P, '--lexicon', lex, '--ids', '5,6'])) {
    assert.equal(r.code, 2);
    assert.match(r.err, /--lexicon looks words up: give TEXT, not --ids/);
  }
});

test('eval --pron scores the model alone and says so', () => {
  const dict = path.join(dir, 'one.dict');
  writeFileSync(dict, 'COLONEL\tK ER N AH L\n');
  const j = JSON.parse(run('native', ['eval', '--model', G2P, '--pron', dict, '--json']).out);
  assert.equal(j.lexicon, null);
  assert.match(run('native', ['eval', '--model', G2P, '--pron', dict]).out, /no lexicon \(every word is the model's\)/);
});
