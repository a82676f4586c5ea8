// model.translateBatch(inputs, options) against model.translate(): for every shipped model (models/index.json)
// the batch's result i deep-equals translate(inputs[i], options), bit for bit (typed arrays compared
// element by element), greedy, beam 5, several hypotheses, sampling, a prefix, replaceUnknowns, on a
// few dozen inputs of varied length with unknown characters, mixed letter case, ids and an Encoded;
// maxRows changes nothing; a bad entry is refused naming its index with translate()'s code and
// message, and the model works afterwards; [] gives []; nothing leaks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModel, memoryStats, AttnseqError } from '../../wasm/attnseq.js';

const ROOT = new URL('../../', import.meta.url);
// The shipped single-file models (an ensemble's members are such models; tests/js/ensemble.test.mjs has
// the ensemble's batches).
const INDEX = JSON.parse(readFileSync(new URL('models/index.json', ROOT), 'utf8')).models.filter((m) => m.file);
const FIX = (n) => new URL(`tests/data/parity/${n}.safetensors`, ROOT);
const models = new Map();
before(async () => {
  for (const m of INDEX) models.set(m.id, await loadModel(new URL(`models/${m.file}`, ROOT)));
});
after(() => { for (const m of models.values()) m.dispose(); });

// Deterministic pseudo-random choices (splitmix-like), so every run tests the same inputs.
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) % n;
  };
}

// CMUdict words (data/cmudict/g014b2b.ref, first column), one of each length from 1 to 16 letters
// where there is one, in three letter cases.
const dictWords = readFileSync(new URL('data/cmudict/g014b2b.ref', ROOT), 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
function wordsByLength() {
  const out = [];
  for (let n = 1; n <= 16; n++) {
    const w = dictWords.find((x) => x.length === n && /^[A-Z]+$/.test(x));
    if (w) out.push(w);
  }
  return out;
}
const mixCase = (w, pick) => Array.from(w, (c) => (pick(2) ? c.toLowerCase() : c)).join('');

/** A few dozen inputs for a shipped model: varied lengths, unknown pieces, letter case, ids. */
function inputsFor(id, model) {
  const pick = rng(id.length * 7919 + 17);
  const examples = INDEX.find((m) => m.id === id).examples;
  const ins = [...examples];
  if (id === 'g2p-en') {
    const words = wordsByLength();
    ins.push(...words, ...words.map((w) => w.toLowerCase()), ...words.map((w) => mixCase(w, pick)));
    ins.push('kn!ght', 'naïve', 'x-ray', "o'neil", '日本', 'a\u0000b', '😀ok', 'Worcestershire-Sauce', 'Q');
  } else if (id === 'dates') {
    const months = ['January', 'March', 'July', 'October', 'December'];
    for (let i = 0; i < 16; i++) {
      const d = 1 + pick(28), mo = 1 + pick(12), y = 1950 + pick(90);
      const forms = [`${d} ${months[mo % 5]} ${y}`, `${String(d).padStart(2, '0')}/${String(mo).padStart(2, '0')}/${y % 100}`,
        `${months[mo % 5].slice(0, 3).toUpperCase()} ${d}, ${y}`, `${d}.${mo}.${y}`];
      ins.push(forms[i % 4]);
    }
    ins.push('3 march 2018', 'SATURDAY, MARCH 3, 2018', '3 März 2018', '2018年3月3日', '1/1/1', 'the 31st of December, 1999',
      '   07.07.07   ', '12 JAN 2000 and then some more text to make it long', 'x');
  } else if (id.startsWith('reverse')) {
    for (let n = 1; n <= 40; n += 1 + pick(2)) ins.push(Array.from({ length: n }, () => String.fromCharCode(97 + pick(20))).join(''));
    ins.push('ABC', 'hello world', 'xyzabc', 'a');
  } else {
    // en-ko: the examples, made-up sentences from the vocabulary, sentences with unknown words and letter case the vocabulary lacks, longer ones.
    const names = ['Emma', 'Jane', 'Jisu', 'John', 'Mina', 'Minho', 'Sam', 'Sora', 'Tom', 'Yuna'];
    const tails = ['ate an apple', 'bought a book', 'drank coffee', 'went to the bank', 'read a letter at the cafe',
      'liked the flower', 'bought bread for Jane', 'came to the hospital'];
    for (let i = 0; i < 16; i++) ins.push(`${names[pick(names.length)]} ${tails[pick(tails.length)]}`);
    ins.push('Jane went to the supermarket', 'jane WENT to the store', 'Tom ate an apple and a banana at the cafe',
      'Mina read the book at the library '.repeat(4).trim(), 'Zebra', 'Jane', 'the the the', '제인 went to the store');
  }
  // Token ids too (translate() takes them), the shortest and a longer run, and an Encoded.
  ins.push([4], Array.from({ length: 9 }, (_, i) => 4 + ((i * 5) % (model.config.srcVocabSize - 4))));
  return ins;
}

const show = (x) => (typeof x === 'string' || Array.isArray(x) ? JSON.stringify(x) : x.constructor.name);

const OPTION_SETS = (id) => {
  const sets = [{}, { beam: 5 }, { beam: 5, numHypotheses: 3 }, { beam: 3, lengthPenalty: 0.6, maxLength: 12 },
    { temperature: 0.8, seed: 7 }];
  if (id.startsWith('en-ko')) sets.push({ prefix: '톰이', replaceUnknowns: true }, { beam: 2, replaceUnknowns: true });
  if (id === 'dates') sets.push({ prefix: '19', beam: 2 });
  return sets;
};

test('translateBatch(inputs) deep-equals inputs.map(translate) on every shipped model, greedy, beam and sampled', () => {
  assert.ok(INDEX.length >= 4 && ['g2p-en', 'en-ko', 'dates', 'reverse'].every((id) => models.has(id)));
  for (const [id, model] of models) {
    const inputs = inputsFor(id, model);
    const enc = model.encode(inputs[0]);
    inputs.push(enc);
    if (id === 'g2p-en' || id === 'en-ko') assert.ok(inputs.length >= 24, `${id}: a few dozen inputs (${inputs.length})`);
    for (const options of OPTION_SETS(id)) {
      const what = `${id} ${JSON.stringify(options)}`;
      const got = model.translateBatch(inputs, options);
      const want = inputs.map((x) => model.translate(x, options));
      assert.equal(got.length, inputs.length, what);
      for (let i = 0; i < inputs.length; i++) assert.deepStrictEqual(got[i], want[i], `${what}: inputs[${i}] = ${show(inputs[i])}`);
      // The comparison has teeth: the inputs give different outputs, and beams give several hypotheses.
      assert.ok(new Set(got.map((r) => r.text)).size > inputs.length / 4, `${what}: varied outputs`);
      if (options.numHypotheses) assert.ok(got.every((r) => r.hypotheses.length === options.numHypotheses), what);
      else if (options.beam === 5) assert.ok(got.every((r) => r.hypotheses.length === 5), what);
    }
    enc.dispose();
  }
});

test('the inputs are read as translate() reads them: letter case, unknown pieces, ids', async () => {
  const g2p = models.get('g2p-en');
  const [upper, lower, mixed, unknown] = g2p.translateBatch(['KNIGHT', 'knight', 'kNiGhT', 'kn!ght']);
  assert.equal(upper.text, 'N AY T');
  assert.deepEqual(lower.tokens, upper.tokens, 'the source folds to upper case');
  assert.deepEqual(mixed.attention, upper.attention);
  assert.deepEqual(lower.srcTokens, ['k', 'n', 'i', 'g', 'h', 't'], 'srcTokens as typed');
  assert.deepEqual(mixed.srcTokens, ['k', 'N', 'i', 'G', 'h', 'T']);
  assert.equal(unknown.srcTokens[2], '!');
  assert.notEqual(unknown.text, upper.text, '! is unknown, not skipped');
  // Wide characters (a UTF-16 pair) and NUL stay whole source tokens.
  const [wide] = g2p.translateBatch(['a😀\u0000b']);
  assert.deepEqual(wide.srcTokens, ['a', '😀', '\u0000', 'b']);
  // An ids-only model (no vocabulary): ids in, #id names out.
  const m = await loadModel(FIX('tensors_only'));
  try {
    const inputs = [[11, 6, 9, 4, 11], new Int32Array([5, 6]), [4]];
    for (const options of [{}, { beam: 3 }]) assert.deepStrictEqual(m.translateBatch(inputs, options), inputs.map((x) => m.translate(x, options)));
    assert.deepEqual(m.translateBatch([[5, 6]])[0].srcTokens, ['#5', '#6']);
  } finally {
    m.dispose();
  }
});

test('maxRows changes nothing in the results', () => {
  for (const id of ['g2p-en', 'reverse']) {
    const model = models.get(id);
    const inputs = inputsFor(id, model);
    for (const options of [{}, { beam: 5 }]) {
      const want = model.translateBatch(inputs, options);
      for (const maxRows of [1, 3, 7, 1024]) assert.deepStrictEqual(model.translateBatch(inputs, { ...options, maxRows }), want, `${id} ${JSON.stringify(options)} maxRows ${maxRows}`);
    }
  }
});

test('an empty array gives an empty array', () => {
  for (const model of models.values()) {
    const r = model.translateBatch([]);
    assert.ok(Array.isArray(r));
    assert.equal(r.length, 0);
    assert.deepEqual(model.translateBatch([], { beam: 5, maxRows: 1 }), []);
  }
  // The options are still checked.
  assert.throws(() => models.get('reverse').translateBatch([], { beam: 0 }), (e) => e.code === 'BAD_INPUT' && /beam/.test(e.message));
});

/** What translate(input, options) throws: its code and message. */
function translateError(model, input, options = {}) {
  try {
    model.translate(input, options);
  } catch (e) {
    assert.ok(e instanceof AttnseqError, `${e?.constructor?.name}: ${e?.message}`);
    return { code: e.code, message: e.message };
  }
  assert.fail(`translate(${JSON.stringify(input)?.slice(0, 40)}) should throw`);
}

test('a bad entry at index k throws translate()\'s error for it, prefixed "inputs[k]: "; the model keeps working', async () => {
  const reverse = models.get('reverse');
  const other = await loadModel(new URL('models/reverse.safetensors', ROOT));
  const foreign = other.encode('abc');
  const disposed = reverse.encode('abc');
  disposed.dispose();
  const good = ['abc', 'hello', [5, 6, 7], 'st'];
  const bad = [
    ['a number', 42, 'BAD_INPUT'],
    ['null', null, 'BAD_INPUT'],
    ['an object', { text: 'abc' }, 'BAD_INPUT'],
    ['empty text', '', 'BAD_INPUT'],
    ['empty ids', [], 'BAD_INPUT'],
    ['a fractional id', [4, 1.5], 'BAD_INPUT'],
    ['an id outside the vocabulary', [4, 999], 'BAD_INPUT'],
    ['a negative id', [-1], 'BAD_INPUT'],
    ['a lone UTF-16 surrogate', 'ab\ud800c', 'BAD_INPUT'],
    ['2000 tokens', 'a'.repeat(2000), 'TOO_LONG'],
    ['text over 1 MiB', 'a'.repeat((1 << 20) + 1), 'TOO_LONG'],
    ['an Encoded of another model', foreign, 'BAD_INPUT'],
    ['a disposed Encoded', disposed, 'DISPOSED'],
  ];
  for (const [what, entry, code] of bad) {
    const want = translateError(reverse, entry);
    assert.equal(want.code, code, `${what}: translate() says ${want.message}`);
    for (const k of [0, 2, good.length]) {
      const inputs = [...good.slice(0, k), entry, ...good.slice(k)];
      assert.throws(() => reverse.translateBatch(inputs), (e) => {
        assert.ok(e instanceof AttnseqError, `${what}: ${e?.constructor?.name}: ${e?.message}`);
        assert.equal(e.code, code, `${what} at ${k}: ${e.message}`);
        assert.equal(e.message, `inputs[${k}]: ${want.message}`, `${what} at ${k}`);
        return true;
      });
    }
    // The model still answers, the batch as translate().
    assert.deepStrictEqual(reverse.translateBatch(good, { beam: 2 }), good.map((x) => reverse.translate(x, { beam: 2 })), `after ${what}`);
  }
  // A source the options do not fit (a prefix longer than this short source's default maximum) is
  // that entry's fault; what no source could satisfy is the options', with no index.
  const prefix = Array(13).fill(4);
  const tooShort = translateError(reverse, 'a', { prefix });
  assert.throws(() => reverse.translateBatch(['abcdefghij', 'a', 'abcde'], { prefix }),
    (e) => e.code === 'BAD_INPUT' && e.message === `inputs[1]: ${tooShort.message}`);
  assert.equal(reverse.translateBatch(['abcdefghij'], { prefix })[0].tokens.length >= 13, true);
  for (const options of [{ numHypotheses: 3 }, { beam: 2, temperature: 0.5 }, { maxLength: 2, prefix: [4, 4, 4] }]) {
    const want = translateError(reverse, 'abc', options);
    assert.throws(() => reverse.translateBatch(['abc', 'de'], options), (e) => e.code === want.code && e.message === want.message, JSON.stringify(options));
  }
  // Text for an ids-only model, as translate() refuses it.
  const idsOnly = await loadModel(FIX('tensors_only'));
  const noVocab = translateError(idsOnly, 'w5 w6');
  assert.throws(() => idsOnly.translateBatch([[5], 'w5 w6']), (e) => e.code === noVocab.code && e.message === `inputs[1]: ${noVocab.message}`);
  assert.equal(idsOnly.translateBatch([[5, 6]]).length, 1);
  idsOnly.dispose();
  foreign.dispose();
  other.dispose();
});

test('what is not a list of inputs, and bad options, are refused without an index', async () => {
  const model = models.get('reverse');
  for (const inputs of ['abc', undefined, null, 5, { 0: 'abc', length: 1 }, new Int32Array([5, 6])])
    assert.throws(() => model.translateBatch(inputs), (e) => e.code === 'BAD_INPUT' && /^translateBatch\(\) takes an array of inputs/.test(e.message), String(inputs));
  for (const maxRows of [0, 1025, 2.5, '8', NaN, null])
    assert.throws(() => model.translateBatch(['abc'], { maxRows }), (e) => e.code === 'BAD_INPUT' && /^option 'maxRows' is .*; it must be an integer in \[1, 1024\]$/.test(e.message), String(maxRows));
  assert.throws(() => model.translateBatch(['abc'], { maxRow: 8 }), (e) => e.code === 'BAD_INPUT' && /unknown option 'maxRow' \(did you mean 'maxRows'/.test(e.message));
  assert.throws(() => model.translateBatch(['abc'], { beam: 'five' }), (e) => e.code === 'BAD_INPUT' && /option 'beam'/.test(e.message));
  assert.throws(() => model.translate('abc', { maxRows: 8 }), (e) => e.code === 'BAD_INPUT', 'maxRows is translateBatch()\'s alone');
  const gone = await loadModel(new URL('models/reverse.safetensors', ROOT));
  gone.dispose();
  assert.throws(() => gone.translateBatch(['abc']), (e) => e.code === 'DISPOSED');
});

test('1,000 batches and 1,000 refused batches leak nothing', async () => {
  const model = models.get('reverse');
  const inputs = ['abc', 'hello', [5, 6, 7], 'abcdefghijklmnopqrst'];
  const work = () => {
    model.translateBatch(inputs, { beam: 3, maxLength: 8 });
    try { model.translateBatch(['abc', [4, 999]]); } catch (e) { if (e.code !== 'BAD_INPUT') throw e; }
    try { model.translateBatch(['abc', 'a'.repeat(1100)]); } catch (e) { if (e.code !== 'TOO_LONG') throw e; }
  };
  for (let i = 0; i < 50; i++) work();  // warm-up: allocator free lists, Embind caches
  const before = await memoryStats();
  for (let i = 0; i < 1000; i++) work();
  const afterStats = await memoryStats();
  assert.equal(afterStats.stackPointer, before.stackPointer, 'stack pointer moved');
  assert.equal(afterStats.heapBytes, before.heapBytes, `heap grew by ${afterStats.heapBytes - before.heapBytes} bytes`);
});

test('a refused entry carries its index and its message without the index as fields (error.index, error.detail), in a model\'s batch and a pool\'s', async () => {
  const { createPool } = await import('../../wasm/attnseq.js');
  const bytes = readFileSync(FIX('gru_luong_general'));
  const model = await loadModel(bytes);
  const pool = await createPool(bytes, { workers: 2 });
  try {
    const inputs = ['w5 w6', 'w5', [5, 9999], 'w6'];
    const check = (e) => {
      assert.ok(e instanceof AttnseqError);
      assert.equal(e.index, 2);
      assert.equal(e.message, `inputs[2]: ${e.detail}`);
      assert.match(e.detail, /outside the vocabulary/);
      return true;
    };
    assert.throws(() => model.translateBatch(inputs), check);
    await assert.rejects(pool.translateBatch(inputs), check);
    // translate() says what the batch says of its one entry, without the index.
    assert.throws(() => model.translate([5, 9999]), (e) => e.index === undefined && /outside the vocabulary/.test(e.message) && !e.message.startsWith('inputs['));
  } finally {
    pool.dispose();
    model.dispose();
  }
});
