// A tokenizer per side through the npm API: model.config's tokenizer / srcTokenizer / tgtTokenizer /
// srcCase for the shipped (single-tokenizer) models; a char -> word model trained on a tiny TSV through
// createTrainer({ task: { tsv, srcTokenizer, tgtTokenizer } }) whose text joins phonemes with single
// spaces; the src_case metadata key folds the input's case; bad tokenizer options are refused; the
// native CLI's --src-tokenizer / --tgt-tokenizer (build/native/attnseq, or $ATTNSEQ_NATIVE_CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { createTrainer, loadModel } from '../../wasm/attnseq.js';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';
import { headerOf, withMetadata } from './safetensors.mjs';

const CLI = NATIVE_CLI;

const MODEL = (n) => new URL(`../../models/${n}.safetensors`, import.meta.url);
const PAIRS = [['knight', 'N AY T'], ['phone', 'F OW N'], ['box', 'B AA K S'], ['tea', 'T IY']];
const TSV = PAIRS.map((p) => p.join('\t')).join('\n') + '\n';

const metadataOf = (bytes) => headerOf(bytes).__metadata__;

test('shipped models: one tokenizer for both sides, reported per side too, no case fold', async () => {
  for (const name of ['en-ko', 'dates']) {
    const bytes = new Uint8Array(await readFile(MODEL(name)));
    const stored = metadataOf(bytes).tokenizer;  // written before per-side tokenizers existed
    const m = await loadModel(bytes);
    assert.equal(m.config.tokenizer, stored, name);
    assert.equal(m.config.srcTokenizer, stored, name);
    assert.equal(m.config.tgtTokenizer, stored, name);
    assert.equal(m.config.srcCase, 'keep', name);
    m.dispose();
  }
  const dates = await loadModel(MODEL('dates'));
  const r = dates.translate('March 5, 2021');
  assert.equal(r.text, r.tgtTokens.filter((t) => t !== '</s>').join(''), 'a char target joins without spaces');
  dates.dispose();
});

test('a char -> word model trained on a tiny TSV spells out words joined by single spaces', async () => {
  const t = await createTrainer({ task: { tsv: TSV, srcTokenizer: 'char', tgtTokenizer: 'word' },
    model: { hidden: 32, embedding: 16 }, steps: 300, lr: 0.01, warmup: 20, seed: 5, batchSize: 8 });
  for (let i = 0; i < 6; i++) t.step(50);
  const bytes = t.save();
  t.dispose();
  const meta = metadataOf(bytes);
  assert.equal(meta.src_tokenizer, 'char');
  assert.equal(meta.tgt_tokenizer, 'word');
  assert.equal(meta.tokenizer, 'mixed');

  const m = await loadModel(bytes);
  assert.equal(m.config.tokenizer, 'mixed');
  assert.equal(m.config.srcTokenizer, 'char');
  assert.equal(m.config.tgtTokenizer, 'word');
  assert.deepEqual([...m.srcVocab.slice(4)], [...new Set(PAIRS.flatMap(([w]) => [...w]))].sort());
  assert.deepEqual([...m.tgtVocab.slice(4)], [...new Set(PAIRS.flatMap(([, p]) => p.split(' ')))].sort());
  assert.deepEqual(m.tokenize('knight').tokens, ['k', 'n', 'i', 'g', 'h', 't']);
  assert.deepEqual(m.tokenize('N AY  T', 'target').tokens, ['N', 'AY', 'T']);
  // Ids name their tokens as text does (the names are read from the engine once per model and side).
  for (const [text, side] of [['knight', 'source'], ['N AY T', 'target']]) {
    const { ids, tokens } = m.tokenize(text, side);
    assert.deepEqual(m.tokenize(ids, side).tokens, tokens);
    assert.deepEqual(m.tokenize(Array.from(ids), side).tokens, tokens);
  }
  assert.equal(m.tokenize([0], 'source').tokens.length, 1);
  assert.equal(typeof m.tokenize([0], 'target').tokens[0], 'string');
  for (const [word, phonemes] of PAIRS) {
    for (const beam of [1, 3]) {
      const r = m.translate(word, { beam });
      assert.equal(r.text, phonemes, `${word}, beam ${beam}`);
      assert.deepEqual(r.tgtTokens.filter((x) => x !== '</s>'), phonemes.split(' '));
      assert.equal(r.srcTokens.length, word.length);
    }
  }
  m.dispose();
});

test('src_case in the metadata folds the input the way the model was trained', async () => {
  const t = await createTrainer({ task: { tsv: TSV.toUpperCase(), tokenizer: 'char', tgtTokenizer: 'word' },
    model: { hidden: 32, embedding: 16 }, steps: 300, lr: 0.01, warmup: 20, seed: 5, batchSize: 8 });
  for (let i = 0; i < 6; i++) t.step(50);
  const bytes = t.save();
  t.dispose();
  const plain = await loadModel(bytes);
  const folded = await loadModel(withMetadata(bytes, { src_case: 'upper' }));
  assert.equal(plain.config.srcCase, 'keep');
  assert.equal(folded.config.srcCase, 'upper');
  assert.equal(folded.config.srcTokenizer, 'char');
  assert.equal(folded.config.tgtTokenizer, 'word');
  const unk = plain.config.unk;
  assert.ok(plain.tokenize('knight').ids.every((id) => id === unk), 'without the fold lower case is unknown');
  assert.deepEqual(folded.tokenize('knight').ids, plain.tokenize('KNIGHT').ids);
  assert.deepEqual(folded.tokenize('Knight').tokens, ['K', 'n', 'i', 'g', 'h', 't'], 'pieces are shown as typed');
  for (const [word, phonemes] of PAIRS) {
    const want = plain.translate(word.toUpperCase()).text;
    assert.equal(want, phonemes, word);
    for (const typed of [word, word.toUpperCase(), word[0].toUpperCase() + word.slice(1)])
      assert.equal(folded.translate(typed, { beam: 3 }).text, want, typed);
  }
  await assert.rejects(loadModel(withMetadata(bytes, { src_case: 'title' })),
    (e) => e.code === 'BAD_CHECKPOINT' && /'src_case' is "title"/.test(e.message));
  plain.dispose();
  folded.dispose();
});

test('per-side tokenizer options: tokenizer sets both, a side overrides it, bad values are refused', async () => {
  const both = await createTrainer({ task: { tsv: TSV, tokenizer: 'char' }, model: { hidden: 8 }, steps: 2 });
  const mb = await loadModel(both.save());
  assert.deepEqual([mb.config.srcTokenizer, mb.config.tgtTokenizer, mb.config.tokenizer], ['char', 'char', 'char']);
  both.dispose();
  mb.dispose();
  const over = await createTrainer({ task: { tsv: TSV, tokenizer: 'word', srcTokenizer: 'char' }, model: { hidden: 8 }, steps: 2 });
  const mo = await loadModel(over.save());
  assert.deepEqual([mo.config.srcTokenizer, mo.config.tgtTokenizer], ['char', 'word']);
  over.dispose();
  mo.dispose();
  await assert.rejects(createTrainer({ task: { tsv: TSV, srcTokenizer: 'bpe' } }),
    (e) => e.code === 'BAD_INPUT' && /srcTokenizer/.test(e.message));
  await assert.rejects(createTrainer({ task: { tsv: TSV, tgtTokeniser: 'word' } }),
    (e) => e.code === 'BAD_INPUT' && /'tgtTokeniser'/.test(e.message) && /did you mean 'tgtTokenizer'/.test(e.message));
});

test('native CLI: train --src-tokenizer char --tgt-tokenizer word; the model reads the same in the npm API', async () => {
  requireNativeCli();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'attnseq-tokenizers-'));
  try {
    const tsv = path.join(tmp, 'g2p.tsv'), out = path.join(tmp, 'g2p.safetensors');
    writeFileSync(tsv, TSV);
    const run = (args) => spawnSync(CLI, args, { encoding: 'utf8', timeout: 60000 });
    const t = run(['train', '--data', tsv, '--src-tokenizer', 'char', '--tgt-tokenizer', 'word', '--hidden', '32',
      '--steps', '300', '--batch', '8', '--lr', '0.01', '--warmup', '20', '--threads', '1', '--quiet', '--out', out]);
    assert.equal(t.status, 0, t.stderr);
    assert.match(run(['info', '--model', out]).stdout, /, tokenizer char -> word$/m);
    const m = await loadModel(new Uint8Array(await readFile(out)));
    assert.deepEqual([m.config.srcTokenizer, m.config.tgtTokenizer], ['char', 'word']);
    for (const [word, phonemes] of PAIRS) {
      const cli = run(['translate', '--model', out, word]);
      assert.equal(cli.status, 0, cli.stderr);
      assert.equal(cli.stdout.split('\n')[0], phonemes, word);
      assert.equal(m.translate(word).text, phonemes, word);
    }
    m.dispose();
    const bad = run(['train', '--data', tsv, '--tgt-tokenizer', 'bpe', '--out', out]);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /--tgt-tokenizer is char or word, not "bpe"/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
