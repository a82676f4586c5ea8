// createPool(): batch translation on several Node worker_threads, each with its own engine and copy of
// the model. pool.translateBatch(inputs, options) deep-equals model.translateBatch(inputs, options),
// bit for bit, on every shipped model, for 1, 2 and 3 Workers and with int8 weights; a bad entry is
// refused with model.translateBatch's code and message, naming its index in `inputs` whichever Worker
// met it, and the pool keeps working; bad options, a bad checkpoint, an Encoded and what cannot be
// sent to a Worker are refused with a message (an entry naming its index); dispose() rejects what is
// running and what follows; an idle pool never keeps Node from exiting; createPool(model) rebuilds
// the model from its checkpoint; Node flags a Worker refuses do not stop a pool.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel, createPool, Pool, AttnseqError } from '../../wasm/attnseq.js';

const ROOT = new URL('../../', import.meta.url);
// The shipped single-file models (an ensemble's files are each such a model; a pool holds one model).
const INDEX = JSON.parse(readFileSync(new URL('models/index.json', ROOT), 'utf8')).models.filter((m) => m.file);
const bytesOf = (id) => readFileSync(new URL(`models/${INDEX.find((m) => m.id === id).file}`, ROOT));
const words = readFileSync(new URL('data/cmudict/g014b2b.ref', ROOT), 'utf8').split('\n').filter(Boolean)
  .map((l) => l.split('\t')[0]);

const models = new Map();
const pools = [];
before(async () => {
  for (const m of INDEX) models.set(m.id, await loadModel(bytesOf(m.id)));
});
after(() => {
  for (const m of models.values()) m.dispose();
  for (const p of pools) p.dispose();
});
const pool = async (source, options) => {
  const p = await createPool(source, options);
  pools.push(p);
  return p;
};

/** Inputs for a model: its examples, a few of its own kind of varied length, and ids. */
function inputsFor(id, model) {
  const ins = [...INDEX.find((m) => m.id === id).examples];
  if (id === 'g2p-en') ins.push(...words.filter((_, i) => i % 97 === 0).slice(0, 60), 'kn!ght', 'naïve', 'Q');
  else if (id.startsWith('reverse')) for (let n = 1; n <= 30; n += 3) ins.push('abcdefghijklmnopqrstuvwxyzabcd'.slice(0, n));
  else ins.push(...ins.map((x) => x.toUpperCase()), 'Zebra', 'x');
  ins.push([4], Array.from({ length: 9 }, (_, i) => 4 + ((i * 5) % (model.config.srcVocabSize - 4))));
  return ins;
}

test('pool.translateBatch deep-equals model.translateBatch on every shipped single-file model, 1, 2 and 3 Workers, greedy, beam and sampled', async () => {
  for (const workers of [1, 2, 3]) {
    for (const { id } of INDEX) {
      const model = models.get(id);
      const p = await createPool(bytesOf(id), { workers });
      try {
        assert.equal(p.workers, workers);
        const inputs = inputsFor(id, model);
        for (const options of [{}, { beam: 5 }, { beam: 3, numHypotheses: 2, lengthPenalty: 0.6 }, { temperature: 0.8, seed: 7 }]) {
          const want = model.translateBatch(inputs, options);
          const got = await p.translateBatch(inputs, options);
          assert.deepStrictEqual(got, want, `${id}, ${workers} Workers, ${JSON.stringify(options)}`);
        }
      } finally {
        p.dispose();
      }
    }
  }
});

test('int8: a pool made with { quantize: "int8" } gives what an int8 model gives; calls in flight together all settle', async () => {
  const bytes = bytesOf('g2p-en');
  const q = await loadModel(bytes, { quantize: 'int8' });
  const p = await pool(bytes, { workers: 2, quantize: 'int8' });
  const inputs = words.slice(0, 300);
  const [a, b] = await Promise.all([p.translateBatch(inputs), p.translateBatch(inputs.slice(0, 50), { beam: 4 })]);
  assert.deepStrictEqual(a, q.translateBatch(inputs));
  assert.deepStrictEqual(b, q.translateBatch(inputs.slice(0, 50), { beam: 4 }));
  // And int8 is not f32: at least one word's weights differ (so the option reached the Workers).
  const f = models.get('g2p-en').translateBatch(inputs);
  assert.ok(f.some((r, i) => !r.attention.every((v, j) => v === a[i].attention[j])), 'the int8 pool decodes with int8 weights');
  q.dispose();
});

test('a bad entry is refused with model.translateBatch\'s error and its index in inputs, whichever Worker met it; the pool keeps working', async () => {
  const model = models.get('reverse');
  const p = await pool(bytesOf('reverse'), { workers: 3 });
  const good = ['abc', 'hello', [5, 6, 7], 'st', 'abcdefg', 'xy'];
  for (const [what, entry, code] of [['a number', 42, 'BAD_INPUT'], ['empty text', '', 'BAD_INPUT'], ['an id outside the vocabulary', [4, 999], 'BAD_INPUT'],
    ['a lone surrogate', 'ab\ud800c', 'BAD_INPUT'], ['2000 tokens', 'a'.repeat(2000), 'TOO_LONG'], ['an object', { text: 'abc' }, 'BAD_INPUT']]) {
    for (const k of [0, 3, good.length]) {
      const inputs = [...good.slice(0, k), entry, ...good.slice(k)];
      let want;
      try {
        model.translateBatch(inputs);
      } catch (e) {
        want = e;
      }
      assert.equal(want?.code, code, `${what}: model.translateBatch says ${want?.message}`);
      await assert.rejects(p.translateBatch(inputs), (e) => {
        assert.ok(e instanceof AttnseqError, `${what}: ${e?.constructor?.name}: ${e?.message}`);
        assert.equal(e.code, code);
        assert.equal(e.message, want.message, `${what} at ${k}`);
        assert.equal(e.index, k);
        return true;
      });
    }
    assert.deepStrictEqual(await p.translateBatch(good, { beam: 2 }), model.translateBatch(good, { beam: 2 }), `after ${what}`);
  }
  // Two bad entries, in different Workers' shares: the first in inputs order is named.
  const two = ['abc', 'a'.repeat(2000), 'hello', 'abcd', 42, 'x'];
  await assert.rejects(p.translateBatch(two), (e) => e.index === 1 && e.code === 'TOO_LONG' && /^inputs\[1\]: /.test(e.message));
  // An Encoded belongs to its model's thread.
  const enc = model.encode('abc');
  await assert.rejects(p.translateBatch(['ab', enc]), (e) => e.code === 'BAD_INPUT' && e.index === 1 && /^inputs\[1\]: a pool takes texts or ids/.test(e.message));
  enc.dispose();
  // What cannot be sent to a Worker at all: named by its index in inputs like any bad entry.
  for (const k of [0, 3, 6]) {
    const inputs = [...good.slice(0, k), () => 'abc', ...good.slice(k)];
    await assert.rejects(p.translateBatch(inputs), (e) => {
      assert.equal(e.code, 'BAD_INPUT');
      assert.equal(e.index, k);
      assert.match(e.message, new RegExp(`^inputs\\[${k}\\]: translateBatch: what was given cannot be sent to a Worker`));
      return true;
    });
  }
  await assert.rejects(p.translateBatch(['abc'], { beam: () => 2 }), (e) => e.code === 'BAD_INPUT' && e.index === undefined && /^translateBatch: .*cannot be sent/.test(e.message));
  assert.deepStrictEqual(await p.translateBatch(good), model.translateBatch(good));
  // Bad options: model.translateBatch's message, no index; also for no input at all.
  for (const [inputs, options] of [[['abc'], { bem: 3 }], [[], { bem: 3 }], [['abc'], { maxRows: 0 }], [['abc'], { beam: 2, temperature: 0.5 }]]) {
    let want;
    try {
      model.translateBatch(inputs, options);
    } catch (e) {
      want = e;
    }
    await assert.rejects(p.translateBatch(inputs, options), (e) => e.code === want.code && e.message === want.message && e.index === undefined, JSON.stringify(options));
  }
  for (const inputs of ['abc', null, 5]) await assert.rejects(p.translateBatch(inputs), (e) => e.code === 'BAD_INPUT' && /takes an array of inputs/.test(e.message));
  assert.deepStrictEqual(await p.translateBatch([]), []);
  assert.deepStrictEqual(await p.translateBatch(good), model.translateBatch(good));
});

test('createPool refuses bad options, a bad checkpoint and a missing file with a message; new Pool() is refused', async () => {
  const bytes = bytesOf('reverse');
  for (const workers of [0, 65, 1.5, '2', null, NaN])
    await assert.rejects(createPool(bytes, { workers }), (e) => e.code === 'BAD_INPUT' && /option 'workers' is .*; it must be an integer in \[1, 64\]/.test(e.message), String(workers));
  await assert.rejects(createPool(bytes, { quantize: 'int4' }), (e) => e.code === 'BAD_INPUT' && /option 'quantize'/.test(e.message));
  await assert.rejects(createPool(bytes, { worker: 2 }), (e) => e.code === 'BAD_INPUT' && /unknown option 'worker' \(did you mean 'workers'/.test(e.message));
  await assert.rejects(createPool(new Uint8Array([1, 2, 3]), { workers: 2 }), (e) => e.code === 'BAD_CHECKPOINT');
  await assert.rejects(createPool(new URL('models/nothing-here.safetensors', ROOT), { workers: 2 }), (e) => e.code === 'LOAD_FAILED');
  await assert.rejects(createPool(12), (e) => e.code === 'BAD_INPUT');
  assert.throws(() => new Pool(), (e) => e.code === 'BAD_INPUT' && /made by createPool/.test(e.message));
});

test('dispose() rejects the call in flight and every later one with DISPOSED', async () => {
  const p = await createPool(bytesOf('g2p-en'), { workers: 2 });
  const running = p.translateBatch(words.slice(0, 2000), { beam: 5 });
  p.dispose();
  await assert.rejects(running, (e) => e.code === 'DISPOSED');
  await assert.rejects(p.translateBatch(['abc']), (e) => e.code === 'DISPOSED' && /this Pool has been disposed/.test(e.message));
  assert.equal(p.disposed, true);
  p.dispose();  // twice is fine
});

test('a pool that is never disposed does not keep Node running once idle', () => {
  const script = `import { createPool } from ${JSON.stringify(new URL('wasm/attnseq.js', ROOT).href)};
    const p = await createPool(${JSON.stringify(fileURLToPath(new URL('models/reverse.safetensors', ROOT)))}, { workers: 2 });
    const r = await p.translateBatch(['abc', 'hello']);
    console.log(r.map((x) => x.text).join(','));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.signal, null, 'killed: the idle pool kept Node running');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), `${models.get('reverse').translate('abc').text},${models.get('reverse').translate('hello').text}`);
});

test('createPool(model), as the README has it: the Workers load the checkpoint the model came from, int8 as it was', async () => {
  const bytes = new Uint8Array(bytesOf('g2p-en'));
  const model = await loadModel(bytes);
  bytes.fill(0);  // the caller's array changes after loading: the pool still has the checkpoint
  const inputs = words.slice(0, 40);
  const p = await pool(model, { workers: 2 });
  assert.deepStrictEqual(await p.translateBatch(inputs, { beam: 3 }), model.translateBatch(inputs, { beam: 3 }));
  const q8 = await loadModel(bytesOf('g2p-en'), { quantize: 'int8' });
  const p8 = await pool(q8, { workers: 2 });
  const want = q8.translateBatch(inputs);
  assert.notDeepStrictEqual(want, model.translateBatch(inputs), 'int8 gives other bits');
  assert.deepStrictEqual(await p8.translateBatch(inputs), want);
  // A model loaded from a path works the same way.
  const fromPath = await loadModel(fileURLToPath(new URL('models/reverse.safetensors', ROOT)));
  const pp = await pool(fromPath, { workers: 2 });
  assert.deepStrictEqual(await pp.translateBatch(['abc', 'hello']), fromPath.translateBatch(['abc', 'hello']));
  fromPath.dispose();
  assert.deepStrictEqual(await pp.translateBatch(['abc']), models.get('reverse').translateBatch(['abc']), 'the pool outlives the model');
  await assert.rejects(createPool(fromPath, { workers: 1 }), (e) => e.code === 'DISPOSED');
  model.dispose(); q8.dispose();
});

test('createPool and npx attnseq --batch-file work under Node flags a Worker refuses (--max-old-space-size, --stack-size, --title, ...)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-pool-flags-'));
  try {
    const reverse = fileURLToPath(new URL('models/reverse.safetensors', ROOT));
    const script = `import { createPool } from ${JSON.stringify(new URL('wasm/attnseq.js', ROOT).href)};
      const p = await createPool(${JSON.stringify(reverse)}, { workers: 2 });
      console.log((await p.translateBatch(['abc', 'hello'])).map((x) => x.text).join(','));
      p.dispose();`;
    const file = path.join(dir, 'pool.mjs');
    writeFileSync(file, script);
    writeFileSync(path.join(dir, 'lines.txt'), 'abc\nhello\n');
    const want = `${models.get('reverse').translate('abc').text},${models.get('reverse').translate('hello').text}`;
    const flags = [['--max-old-space-size=512'], ['--expose-gc'], ['--stack-size=900'], ['--title=attnseq-pool-test'],
      ['--abort-on-uncaught-exception'], ['--max-old-space-size=512', '--expose-gc', '--title=x', '--no-warnings']];
    for (const f of flags) {
      for (const args of [[...f, file], [...f, '--input-type=module', '-e', script]]) {
        const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60000 });
        assert.equal(r.status, 0, `node ${args.slice(0, -1).join(' ')}: ${r.stderr}`);
        assert.equal(r.stdout.trim(), want, f.join(' '));
      }
      const cli = spawnSync(process.execPath, [...f, fileURLToPath(new URL('bin/attnseq.js', ROOT)), 'translate', '--model', reverse,
        '--batch-file', path.join(dir, 'lines.txt'), '--threads', '2', '-q'], { encoding: 'utf8', timeout: 60000 });
      assert.equal(cli.status, 0, `npx attnseq under ${f.join(' ')}: ${cli.stderr}`);
      assert.equal(cli.stdout, want.replace(',', '\n') + '\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
