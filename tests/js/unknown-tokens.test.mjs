// Forced target tokens the model does not know are refused, not silently turned into <unk>: a
// translate()/decoder() prefix and a step() force with an unknown piece throw BAD_INPUT naming it,
// a string force must be exactly one token (a char model split 'xyz' and kept its first letter),
// and the known tokens (the unk token's own spelling included) still work. Shipped models en-ko (word
// tokens) and dates (char tokens).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel } from '../../wasm/attnseq.js';

const MODEL = (n) => new URL(`../../models/${n}.safetensors`, import.meta.url);
let enko, dates;
before(async () => { enko = await loadModel(MODEL('en-ko')); dates = await loadModel(MODEL('dates')); });
after(() => { enko?.dispose(); dates?.dispose(); });

// A BAD_INPUT error whose message names `tokens` (quoted) and no other piece of the text.
const refusal = (tokens, absent = []) => (e) => {
  assert.equal(e.code, 'BAD_INPUT', e.message);
  for (const t of tokens) assert.ok(e.message.includes(JSON.stringify(t)), `the message names ${t}: ${e.message}`);
  for (const t of absent) assert.ok(!e.message.includes(JSON.stringify(t)), `the message does not blame ${t}: ${e.message}`);
  return true;
};

test('a prefix with a word the target vocabulary lacks is refused, naming only that word', () => {
  const SRC = 'Jane went to the store';
  assert.ok(enko.tgtVocab.includes('톰이') && !enko.tgtVocab.includes('banana'));
  assert.throws(() => enko.translate(SRC, { prefix: 'banana' }), refusal(['banana']));
  assert.throws(() => enko.translate(SRC, { prefix: '톰이 banana', beam: 3 }), refusal(['banana'], ['톰이']));
  assert.throws(() => enko.translate(SRC, { prefix: 'xx banana' }), refusal(['xx', 'banana']));
  const enc = enko.encode(SRC);
  assert.throws(() => enko.decoder(enc, { prefix: 'banana' }), refusal(['banana']));
  // The model goes on working, and known prefixes (the unk token's own spelling too) are forced.
  const r = enko.translate(SRC, { prefix: '톰이' });
  assert.equal(r.tgtTokens[0], '톰이');
  const u = enko.translate(SRC, { prefix: enko.tgtVocab[enko.config.unk] });
  assert.equal(u.tokens[0], enko.config.unk);
  const dec = enko.decoder(enc, { prefix: '톰이' });
  assert.equal(dec.step().text, '톰이');
  dec.dispose();
  enc.dispose();
});

test('step({ force }) with an unknown token or more than one token is refused; a known one is emitted', () => {
  const enc = enko.encode('Tom ate an apple');
  const dec = enko.decoder(enc, { topk: 0 });
  assert.throws(() => dec.step({ force: 'zzz' }), refusal(['zzz']));
  assert.throws(() => dec.step({ force: '톰이 가게에' }), (e) => e.code === 'BAD_INPUT' && /one target token/.test(e.message));
  assert.throws(() => dec.step({ force: '' }), (e) => e.code === 'BAD_INPUT');
  assert.equal(dec.length, 0, 'a refused force does not take a step');
  const s = dec.step({ force: '가게에' });
  assert.equal(s.text, '가게에');
  assert.equal(s.token, enko.tgtVocab.indexOf('가게에'));
  assert.ok(s.forced);
  assert.equal(dec.step({ force: enko.tgtVocab[enko.config.unk] }).token, enko.config.unk, 'the unk token asked for by name');
  dec.dispose();
  enc.dispose();
});

test('char model: a multi-character force is refused (it used only its first character); unknown characters are named', () => {
  assert.equal(dates.config.tokenizer, 'char');
  assert.ok(!dates.tgtVocab.includes('x') && dates.tgtVocab.includes('2'));
  const enc = dates.encode('3 March 2018');
  const dec = dates.decoder(enc, { topk: 0 });
  assert.throws(() => dec.step({ force: 'xyz' }), (e) => e.code === 'BAD_INPUT' && /one target token; "xyz" is 3 tokens/.test(e.message));
  assert.throws(() => dec.step({ force: '201' }), (e) => e.code === 'BAD_INPUT' && /one target token; "201" is 3 tokens/.test(e.message));
  assert.throws(() => dec.step({ force: 'x' }), refusal(['x']));
  const s = dec.step({ force: '2' });
  assert.equal(s.text, '2');
  dec.dispose();
  assert.throws(() => dates.translate('3 March 2018', { prefix: '2x1' }), refusal(['x'], ['2', '1']));
  assert.ok(dates.translate('3 March 2018', { prefix: '19' }).text.startsWith('19'));
  enc.dispose();
});
