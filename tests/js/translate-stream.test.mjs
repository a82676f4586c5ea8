// model.translateStream(inputs, options) and pool.translateStream(): results in input order, each
// deep-equal to what translate() (and translateBatch()) gives, from arrays, generators and async
// generators, across window boundaries; the source is read a window at a time (what is held at once is
// bounded by `window`, and long inputs come fewer at a time); the engine's memory does not grow with
// the stream; a bad entry is named by its index in the whole stream after the earlier windows'
// results; bad arguments are refused; stopping early closes the source.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModel, createPool, AttnseqError } from '../../wasm/attnseq.js';
import { freshPackage } from './fresh.mjs';

const ROOT = new URL('../../', import.meta.url);
const MODEL = (n) => new URL(`models/${n}.safetensors`, ROOT);
const words = readFileSync(new URL('data/cmudict/g014b2b.ref', ROOT), 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
const LONG = 'abcdefghijklmnopqrstuvwxyz'.repeat(40).slice(0, 1000);

let g2p, reverse;
before(async () => {
  g2p = await loadModel(MODEL('g2p-en'));
  reverse = await loadModel(MODEL('reverse'));
});
after(() => { g2p.dispose(); reverse.dispose(); });

async function collect(iter) {
  const out = [];
  for await (const r of iter) out.push(r);
  return out;
}

/** A generator of `inputs` that records how many were read; `held()` = read but not yet received. */
function counted(inputs) {
  const c = { read: 0, received: 0, maxHeld: 0, closed: false };
  c.source = (function* () {
    try {
      for (const x of inputs) {
        c.read++;
        yield x;
      }
    } finally {
      c.closed = true;
    }
  })();
  c.receive = () => {
    c.maxHeld = Math.max(c.maxHeld, c.read - c.received);
    c.received++;
  };
  return c;
}

test('results in input order, each what translate() gives, from an array, a generator and an async generator, across windows', async () => {
  const inputs = [...words.slice(0, 37), [5, 6, 7], 'kn!ght', 'Q'];
  for (const options of [{}, { beam: 3 }, { beam: 4, numHypotheses: 2, maxLength: 12 }, { temperature: 0.8, seed: 3 }]) {
    const want = inputs.map((x) => g2p.translate(x, options));
    assert.deepStrictEqual(g2p.translateBatch(inputs, options), want);
    for (const window of [undefined, 1, 7, 40, 1000]) {
      const o = window === undefined ? options : { ...options, window };
      const what = JSON.stringify(o);
      assert.deepStrictEqual(await collect(g2p.translateStream(inputs, o)), want, `array ${what}`);
      assert.deepStrictEqual(await collect(g2p.translateStream(inputs.values(), o)), want, `iterator ${what}`);
      const agen = (async function* () { for (const x of inputs) { await null; yield x; } })();
      assert.deepStrictEqual(await collect(g2p.translateStream(agen, o)), want, `async generator ${what}`);
    }
  }
  assert.deepStrictEqual(await collect(g2p.translateStream([])), []);
});

test('the source is read a window at a time: what is held at once is bounded by the window, and long inputs come fewer at a time', async () => {
  for (const window of [1, 5, 64]) {
    const c = counted(words.slice(0, 300));
    let n = 0;
    for await (const r of g2p.translateStream(c.source, { window })) {
      if (n === 0) assert.ok(c.read <= window, `window ${window}: ${c.read} inputs read before the first result`);
      c.receive();
      assert.equal(r.text, g2p.translate(words[n++]).text);
    }
    assert.equal(n, 300);
    assert.ok(c.maxHeld <= window, `window ${window}: ${c.maxHeld} inputs held at once`);
  }
  // 1,000 letters each: a window ends long before 256 inputs (its results' attention is bounded too).
  const c = counted(Array.from({ length: 30 }, () => LONG));
  for await (const r of reverse.translateStream(c.source)) {
    c.receive();
    assert.equal(r.cols, 1000);
  }
  assert.equal(c.received, 30);
  assert.ok(c.maxHeld > 1 && c.maxHeld <= 16, `${c.maxHeld} inputs of 1,000 letters held at once`);
});

test("the engine's memory stays flat: a stream whose results' weights exceed what the engine grew to", async () => {
  // A module instance of its own, so that its memory size is this test's.
  const mod = await freshPackage();
  const m = await mod.loadModel(MODEL('reverse'));
  let first = null, total = 0, n = 0;
  for await (const r of m.translateStream(Array.from({ length: 120 }, () => LONG), { window: 4 })) {
    total += r.attention.byteLength;
    if (++n === 4) first = (await mod.memoryStats()).memoryBytes;
  }
  const last = (await mod.memoryStats()).memoryBytes;
  assert.equal(n, 120);
  assert.equal(last, first, `the engine grew from ${first} to ${last} bytes after the first window`);
  assert.ok(total > last, `the results' weights (${total} bytes) exceed the engine's whole memory (${last} bytes)`);
  m.dispose();
});

test('a bad entry is named by its index in the whole stream, after the earlier windows; bad arguments are refused', async () => {
  const inputs = [...words.slice(0, 10), '', ...words.slice(10, 15)];
  const got = [];
  await assert.rejects(async () => { for await (const r of g2p.translateStream(inputs, { window: 4 })) got.push(r.text); }, (e) => {
    assert.ok(e instanceof AttnseqError);
    assert.equal(e.code, 'BAD_INPUT');
    assert.equal(e.index, 10);
    assert.match(e.message, /^inputs\[10\]: /);
    return true;
  });
  assert.deepEqual(got, words.slice(0, 8).map((w) => g2p.translate(w).text), 'the two windows before it');
  for (const bad of ['abc', 42, null, undefined, { length: 2 }])
    assert.throws(() => g2p.translateStream(bad), (e) => e.code === 'BAD_INPUT' && /takes an Iterable or an AsyncIterable/.test(e.message), String(bad));
  for (const window of [0, 1.5, '8', 1 << 20])
    assert.throws(() => g2p.translateStream([], { window }), (e) => e.code === 'BAD_INPUT' && /option 'window'/.test(e.message), String(window));
  assert.throws(() => g2p.translateStream([], { windw: 3 }), (e) => e.code === 'BAD_INPUT' && /did you mean 'window'/.test(e.message));
  // Option values are checked even for an empty stream, as translateBatch([]) checks them.
  await assert.rejects(collect(g2p.translateStream([], { beam: 0 })), (e) => e.code === 'BAD_INPUT');
  // Stopping early closes the source; the model keeps working.
  const c = counted(words);
  for await (const r of g2p.translateStream(c.source, { window: 3 })) { void r; break; }
  assert.equal(c.closed, true);
  assert.ok(c.read <= 3);
  assert.equal(g2p.translate('knight').text, g2p.translateBatch(['knight'])[0].text);
});

test('pool.translateStream: what model.translateStream gives, a window shared among the Workers; a bad entry named in the stream', async () => {
  const pool = await createPool(g2p, { workers: 2 });
  try {
    const inputs = words.slice(0, 90);
    const want = g2p.translateBatch(inputs, { beam: 2 });
    assert.deepStrictEqual(await collect(pool.translateStream(inputs, { beam: 2 })), want);
    const c = counted(inputs);
    const got = [];
    for await (const r of pool.translateStream(c.source, { beam: 2, window: 16 })) {
      c.receive();
      got.push(r);
    }
    assert.deepStrictEqual(got, want);
    assert.ok(c.maxHeld <= 16, `${c.maxHeld} held`);
    await assert.rejects(collect(pool.translateStream([...inputs.slice(0, 20), 42], { window: 8 })), (e) => e.index === 20 && /^inputs\[20\]: /.test(e.message));
  } finally {
    pool.dispose();
  }
});
