// The model and training settings agree between the command line (`attnseq train`) and the npm
// package's createTrainer (which the page's training panel calls in its worker): the same defaults
// (read from `attnseq train --help` and from the model createTrainer builds when nothing is given) and
// the same ranges (read from each one's refusal of a value just outside). Both come from one table,
// src/train/settings.cpp; this test fails if either side stops using it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTrainer, AttnseqError } from '../../wasm/attnseq.js';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';

// flag, createTrainer key, where the key goes ('model' or the options), a value above the range
const SETTINGS = [
  ['--hidden', 'hidden', 'model', 4097], ['--embedding', 'embedding', 'model', 4097], ['--layers', 'layers', 'model', 9],
  ['--attn-dim', 'attentionSize', 'model', 4097], ['--steps', 'steps', 'options', 1e7 + 1],
  ['--batch', 'batchSize', 'options', 4097], ['--lr', 'lr', 'options', 1.5], ['--warmup', 'warmup', 'options', 1e7 + 1],
  ['--clip', 'clip', 'options', 1e6 + 1], ['--seed', 'seed', 'options', 2 ** 53],
];
const cli = (...args) => spawnSync(NATIVE_CLI, args, { encoding: 'utf8' });

test('the defaults of `attnseq train --help` are the ones createTrainer uses', async () => {
  requireNativeCli();
  const help = cli('train', '--help').stdout;
  const def = (flag) => /\(default ([^)]+)\)/.exec(help.split('\n').find((l) => l.trimStart().startsWith(flag + ' ')) ?? '')?.[1];
  const t = await createTrainer({ task: 'copy' });
  const m = await t.model();
  try {
    assert.equal(Number(def('--hidden')), m.config.hidden);
    assert.equal(Number(def('--layers')), m.config.layers);
    assert.equal(m.config.embedding, m.config.hidden, '--embedding defaults to --hidden');
    assert.equal(def('--style'), m.config.style);
    assert.equal(def('--score'), m.config.score);
    assert.equal(def('--cell'), m.config.cell);
    // Training defaults: createTrainer's learning-rate schedule at step 0 of warm-up is lr / warmup.
    const r = t.step(1);
    assert.ok(Math.abs(r.lr - Number(def('--lr')) / Number(def('--warmup'))) < 1e-9, `lr ${r.lr}`);
    assert.equal(r.tokens > 0, true);
  } finally {
    m.dispose();
    t.dispose();
  }
  // The additive score's inner size defaults to the hidden size in both (the CLI's help says so).
  assert.match(help, /--attn-dim N +.*default: --hidden/);
  const ta = await createTrainer({ task: 'copy', model: { score: 'additive' } });
  const ma = await ta.model();
  assert.equal(ma.config.attentionSize, ma.config.hidden);
  ma.dispose();
  ta.dispose();
});

test('both refuse a value just outside the same range, naming the setting', async () => {
  requireNativeCli();
  for (const [flag, key, where, bad] of SETTINGS) {
    const r = cli('train', '--task', 'copy', flag, String(bad), '--out', '/nonexistent/x.safetensors');
    assert.equal(r.status, 2, `${flag}: a usage error`);
    const cliRange = /in \[([^\]]+)\]/.exec(r.stderr)?.[1];
    assert.ok(cliRange && r.stderr.includes(flag), `${flag}: ${r.stderr}`);
    const opts = where === 'model' ? { task: 'copy', model: { [key]: bad } } : { task: 'copy', [key]: bad };
    const err = await createTrainer(opts).then(() => null, (e) => e);
    assert.ok(err instanceof AttnseqError && err.code === 'BAD_INPUT', `${key}: ${err}`);
    const jsRange = /in \[([^\]]+)\]/.exec(err.message)?.[1];
    assert.ok(err.message.includes(`'${key}'`), err.message);
    assert.equal(jsRange, cliRange, `${flag} / ${key}`);
  }
});
