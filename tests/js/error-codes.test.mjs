// Error codes at the boundary: the engine raises a kind (src/core/errors.hpp) and wasm/bindings.cpp
// turns it into AttnseqError.code in one place. Each length limit reaches JavaScript as TOO_LONG through
// each kind of call (tokenize, a decoder step, the trainer), and a code follows the kind, never a word
// in the message: a file or a name that says "maximum" is still BAD_CHECKPOINT or BAD_INPUT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadModel, createTrainer, AttnseqError } from '../../wasm/attnseq.js';
import { headerOf, withMetadata } from './safetensors.mjs';

const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);

/** assert.throws / rejects predicate: an AttnseqError with this code whose message matches. */
const withCode = (code, message) => (e) => {
  assert.ok(e instanceof AttnseqError, `${e?.constructor?.name}: ${e?.message}`);
  assert.equal(e.code, code, e.message);
  if (message) assert.match(e.message, message);
  return true;
};

test('every length limit reaches JavaScript as TOO_LONG, from tokenize, step and the trainer', async () => {
  const model = await loadModel(FIX('gru_luong_dot'));
  // Text over 1 MiB, refused by the tokenizer.
  assert.throws(() => model.tokenize('w5 '.repeat(400000)), withCode('TOO_LONG', /bytes; the maximum is 1048576/));
  // A source over 1024 tokens, refused by the encoder.
  assert.throws(() => model.encode(new Array(1025).fill(5)), withCode('TOO_LONG', /1025 tokens; the maximum is 1024/));
  // The 1025th target token, refused by a decoder step (its own catch site in the bindings).
  const enc = model.encode('w5 w6');
  const dec = model.decoder(enc, { topk: 0 });
  for (let k = 0; k < 1024; k++) dec.step({ force: 5 });
  assert.throws(() => dec.step({ force: 5 }), withCode('TOO_LONG', /^the target already has 1024 tokens, the maximum$/));
  assert.equal(dec.length, 1024);
  dec.dispose();
  enc.dispose();
  // A TSV line over 1024 tokens, refused while the trainer reads its task.
  const tsv = `${'a '.repeat(1025)}\tb\n`;
  await assert.rejects(createTrainer({ task: { tsv } }), withCode('TOO_LONG', /^tsv line 1: source has 1025 tokens/));
  // The model still answers.
  assert.equal(model.translate('w5 w6').rows > 0, true);
  model.dispose();
});

test('the code follows the kind of error, not the words of its message', async () => {
  const good = new Uint8Array(await readFile(FIX('gru_luong_general')));
  // A metadata value that says "maximum" is a bad checkpoint, not a length.
  await assert.rejects(loadModel(withMetadata(good, { style: 'maximum' })),
    withCode('BAD_CHECKPOINT', /metadata 'style' is "maximum"/));
  // A task named "maximum" is bad input.
  await assert.rejects(createTrainer({ task: 'maximum' }), withCode('BAD_INPUT', /unknown task "maximum"/));
  // What the configuration's own checks refuse is the file's fault when the file says it.
  await assert.rejects(loadModel(withMetadata(good, { eos: '999' })), withCode('BAD_CHECKPOINT', /special token id 999/));
  // A vocabulary that lists a token twice, found when the engine builds its tokenizers after the load.
  const meta = headerOf(good);
  const vocab = JSON.parse(meta.__metadata__.src_vocab);
  vocab[vocab.length - 1] = vocab[vocab.length - 2];
  await assert.rejects(loadModel(withMetadata(good, { src_vocab: JSON.stringify(vocab) })),
    withCode('BAD_CHECKPOINT', /appears twice/));
  // The unchanged file loads.
  (await loadModel(good)).dispose();
});

test('the error codes are one table (ERROR_CODES): the bindings, index.d.ts, the README, the architecture doc and every throw site agree with it', async () => {
  const { ERROR_CODES } = await import('../../wasm/attnseq.js');
  const codes = Object.keys(ERROR_CODES).sort();
  const root = new URL('../../', import.meta.url);
  const read = (f) => readFile(new URL(f, root), 'utf8');
  // The engine's codes (src/core/errors.hpp's ATTNSEQ_ERROR_KINDS) are the table's.
  const core = await (await import('../../dist/attnseq-core.mjs')).default({ wasmBinary: await readFile(new URL('dist/attnseq-core.wasm', root)) });
  for (const c of core.statusCodes()) assert.ok(codes.includes(c), `the bindings' ${c}`);
  // index.d.ts's union is exactly the table.
  const dts = await read('wasm/index.d.ts');
  const union = /export type AttnseqErrorCode =([^;]*);/.exec(dts)[1];
  assert.deepEqual([...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort(), codes);
  // The README's paragraph and the architecture doc name every code.
  const readme = await read('README.md');
  const para = readme.slice(readme.indexOf('Error codes (`ERROR_CODES`'), readme.indexOf('\n\n', readme.indexOf('Error codes (`ERROR_CODES`')));
  for (const c of codes) assert.ok(para.includes(`\`${c}\``), `README names ${c}`);
  const arch = await read('docs/architecture.md');
  for (const c of codes) assert.ok(arch.includes(`\`${c}\``), `docs/architecture.md names ${c}`);
  // Every code the JavaScript throws is in the table.
  for (const f of ['wasm/attnseq.js', 'wasm/pronounce.js', 'wasm/pool-worker.js', 'bin/attnseq.js', 'packages/attnseq-models/index.js']) {
    for (const m of (await read(f)).matchAll(/AttnseqError\('([A-Z_]+)'/g)) assert.ok(codes.includes(m[1]), `${f}: ${m[1]}`);
  }
  for (const [c, meaning] of Object.entries(ERROR_CODES)) assert.ok(meaning.length > 10, c);
});
