// The decode options' one table (src/decode/options.hpp) as the package and both command lines read
// it: decodeOptions() lists it, each function takes exactly the rows of its scope, index.d.ts
// documents every row, the native and the npm command lines print every row with a flag in their help;
// and the repetition guard, the length ratio and the coverage penalty give the same answer through
// translate(), translateBatch(), a pool, decoder() and both command lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadModel, createPool, decodeOptions, AttnseqError } from '../../wasm/attnseq.js';
import { cliOk, requireNativeCli } from './native.mjs';

const G2P = fileURLToPath(new URL('../../models/g2p-en.safetensors', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/attnseq.js', import.meta.url));
const DTS = readFileSync(new URL('../../wasm/index.d.ts', import.meta.url), 'utf8');
const LONG = 'supercalifragilisticexpialidocious';

// The tokens of `tokens` that repeat an n-gram seen before them.
function repeatedNgram(tokens, n) {
  const seen = new Set();
  for (let k = 0; k + n <= tokens.length; k++) {
    const g = tokens.slice(k, k + n).join(' ');
    if (seen.has(g)) return g;
    seen.add(g);
  }
  return null;
}

test('decodeOptions() is the engine\'s table; each function takes the rows of its scope and refuses the others', async () => {
  const rows = await decodeOptions();
  const names = rows.map((r) => r.name);
  for (const n of ['beam', 'maxLength', 'maxLengthRatio', 'lengthPenalty', 'coveragePenalty', 'noRepeatNgram', 'temperature', 'seed', 'numHypotheses', 'trace'])
    assert.ok(names.includes(n), n);
  assert.equal(new Set(names).size, names.length);
  for (const r of rows) {
    assert.ok(['integer', 'number', 'boolean'].includes(r.kind), r.name);
    assert.ok(r.min <= r.default && r.default <= r.max, `${r.name}: default ${r.default} in [${r.min}, ${r.max}]`);
    assert.ok(r.help.length > 10, r.name);
    assert.ok(r.scope.length > 0, r.name);
  }
  const model = await loadModel(G2P);
  try {
    const unknown = (fn, name) => assert.throws(fn, (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && e.message.includes(`unknown option '${name}'`), name);
    for (const r of rows) {
      const value = r.kind === 'boolean' ? false : r.default;
      const opts = { [r.name]: value };
      if (r.scope.includes('one')) model.translate('cat', opts); else unknown(() => model.translate('cat', opts), r.name);
      if (r.scope.includes('batch')) model.translateBatch(['cat'], opts); else unknown(() => model.translateBatch(['cat'], opts), r.name);
      const enc = model.encode('cat');
      if (r.scope.includes('step')) model.decoder(enc, opts).step(); else unknown(() => model.decoder(enc, opts), r.name);
      // A value past the row's range is refused naming the option and the range.
      if (r.kind !== 'boolean' && r.scope.includes('one')) {
        assert.throws(() => model.translate('cat', { [r.name]: r.max + 1 }),
          (e) => e.code === 'BAD_INPUT' && e.message.includes(`option '${r.name}' is`) && e.message.includes(`it must be in [${r.min}, `), r.name);
      }
    }
    // The module stays usable after every refusal.
    assert.equal(model.translate('cat').text, 'K AE T');
  } finally {
    model.dispose();
  }
});

test('index.d.ts documents every decode option, and both command lines list every option with a flag', () => {
  return decodeOptions().then((rows) => {
    for (const r of rows) {
      // A doc comment ends on the line before the member.
      assert.match(DTS, new RegExp(`\\*/\\n\\s+${r.name}\\?: (number|boolean) \\| undefined;`), `index.d.ts: ${r.name}`);
    }
    const npmHelp = spawnSync(process.execPath, [BIN, 'translate', '--help'], { encoding: 'utf8' }).stdout;
    for (const r of rows.filter((x) => x.flag && x.scope.includes('one'))) assert.ok(npmHelp.includes(`${r.flag} ${r.metavar}`), `npm help: ${r.flag}`);
    requireNativeCli();
    const nativeHelp = cliOk(['translate', '--help']).out;
    for (const r of rows.filter((x) => x.flag && x.scope.includes('one'))) assert.ok(nativeHelp.includes(`${r.flag} ${r.metavar}`), `native help: ${r.flag}`);
    const evalHelp = cliOk(['eval', '--help']).out;
    // (eval's own --seed is the seed of a task's held-out examples, not sampling's.)
    for (const r of rows.filter((x) => x.flag && x.flag !== '--seed')) assert.equal(evalHelp.includes(`${r.flag} `), r.scope.includes('eval'), `eval help: ${r.flag}`);
  });
});

test('the repetition guard stops g2p-en\'s loop, the same through translate, a batch, a pool, the decoder and both command lines', async () => {
  const model = await loadModel(G2P);
  try {
    const loop = model.translate(LONG);
    assert.ok(repeatedNgram(loop.tgtTokens, 4), `unguarded, '${LONG}' loops: ${loop.text}`);
    for (const beam of [1, 5]) {
      const opts = { beam, noRepeatNgram: 4, numHypotheses: 1 };
      const one = model.translate(LONG, opts);
      assert.equal(repeatedNgram(one.tgtTokens, 4), null, one.text);
      assert.ok(one.tgtTokens.length < loop.tgtTokens.length);
      const [batch] = model.translateBatch([LONG], opts);
      assert.equal(batch.text, one.text);
      assert.equal(batch.score, one.score);
      const native = JSON.parse(cliOk(['translate', '--model', G2P, '--beam', String(beam), '--no-repeat-ngram', '4', '--num-hypotheses', '1', '--json', LONG]).out);
      assert.equal(native.text ?? native.hypotheses?.[0]?.text, one.text);
      const npm = spawnSync(process.execPath, [BIN, 'translate', '-m', G2P, '-b', String(beam), '--no-repeat-ngram', '4', '-n', '1', '-q', LONG], { encoding: 'utf8' });
      assert.equal(npm.status, 0, npm.stderr);
      assert.equal(npm.stdout.trim(), one.text);
    }
    // The decoder, step by step, chooses what greedy translate() chooses.
    const d = model.decoder(model.encode(LONG), { noRepeatNgram: 4, maxLengthRatio: 1 });
    const steps = [];
    for (let s = d.step(); ; s = d.step()) { steps.push(s.token); if (s.done) break; }
    const greedy = model.translate(LONG, { noRepeatNgram: 4, maxLengthRatio: 1 });
    assert.deepEqual(steps, [...greedy.tokens]);
    // A pool's Workers learn the table from their engine and give the same answer.
    const pool = await createPool(G2P, { workers: 1 });
    try {
      const [p] = await pool.translateBatch([LONG], { noRepeatNgram: 4 });
      assert.equal(p.text, model.translate(LONG, { noRepeatNgram: 4 }).text);
      await assert.rejects(pool.translateBatch([LONG], { noRepeatNgram: 'four' }), (e) => e.code === 'BAD_INPUT' && /noRepeatNgram/.test(e.message));
    } finally {
      pool.dispose();
    }
  } finally {
    model.dispose();
  }
});

test('maxLengthRatio bounds the output by the source\'s length; coveragePenalty re-ranks the beam', async () => {
  const model = await loadModel(G2P);
  try {
    const src = 'abcabcab';
    const r = model.translate(src, { maxLengthRatio: 0.5 });
    assert.ok(r.tokens.length <= Math.ceil(0.5 * src.length) + 1, `${r.tokens.length} tokens`);
    const plain = model.translate('photograph', { beam: 5 });
    const covered = model.translate('photograph', { beam: 5, coveragePenalty: 1 });
    assert.equal(covered.hypotheses.length, plain.hypotheses.length);
    for (let i = 1; i < covered.hypotheses.length; i++) assert.ok(covered.hypotheses[i - 1].score >= covered.hypotheses[i].score);
    // The penalty is <= 0: no hypothesis scores more than it did without it.
    for (const h of covered.hypotheses) {
      const same = plain.hypotheses.find((p) => p.text === h.text);
      if (same) assert.ok(h.score <= same.score + 1e-6, `${h.text}: ${h.score} vs ${same.score}`);
    }
    assert.throws(() => model.translate('cat', { coveragePenalty: 1 }), (e) => e.code === 'BAD_INPUT' && /beam must be at least 2/.test(e.message));
  } finally {
    model.dispose();
  }
});

test('eval --pron takes the search options and reports them', () => {
  requireNativeCli();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-decode-options-'));
  try {
    const file = path.join(dir, 'two.dict');
    writeFileSync(file, 'PHOTOGRAPH\tF OW T AH G R AE F\nKNIGHT\tN AY T\n');  // data/cmudict's form
    const j = JSON.parse(cliOk(['eval', '--model', G2P, '--pron', file, '--beam', '3', '--no-repeat-ngram', '4', '--coverage-penalty', '0.5', '--json']).out);
    assert.equal(j.beam, 3);
    assert.equal(j.no_repeat_ngram, 4);
    assert.equal(j.coverage_penalty, 0.5);
    assert.equal(j.words, 2);
    assert.match(cliOk(['eval', '--model', G2P, '--pron', file, '--beam', '3', '--no-repeat-ngram', '4']).out, /beam 3, no_repeat_ngram 4/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('models/index.json\'s decode options are options of translate(), translateBatch() and decoder(), and g2p-en\'s stop its loop', async () => {
  const index = JSON.parse(readFileSync(new URL('../../models/index.json', import.meta.url), 'utf8')).models;
  const rows = await decodeOptions();
  const withDecode = index.filter((m) => m.decode !== undefined);
  assert.ok(withDecode.some((m) => m.id === 'g2p-en'));
  for (const m of withDecode) {
    for (const k of Object.keys(m.decode)) {
      const r = rows.find((x) => x.name === k);
      assert.ok(r, `${m.id}: '${k}' is a decode option`);
      for (const s of ['one', 'batch', 'step']) assert.ok(r.scope.includes(s), `${m.id}: '${k}' applies to '${s}' (the page uses it everywhere)`);
    }
  }
  const g2p = await loadModel(G2P);
  try {
    const { decode } = index.find((m) => m.id === 'g2p-en');
    for (const beam of [1, 5]) assert.equal(repeatedNgram(g2p.translate(LONG, { ...decode, beam }).tgtTokens, 4), null);
  } finally {
    g2p.dispose();
  }
});
