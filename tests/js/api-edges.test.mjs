// Edges of the JavaScript API (wasm/attnseq.js): init() and loadModel() on sources that cannot work
// (unreachable, garbage or foreign .wasm, a spent Response, a detached buffer, an upper-case URL
// scheme) throw AttnseqError and leave the module usable; objects made from a disposed model refuse
// every call; tiny sampling temperatures behave as greedy; CSV and Pharaoh exports follow their formats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadModel, AttnseqError, alignmentToCSV, alignmentToPharaoh } from '../../wasm/attnseq.js';
import { freshPackage } from './fresh.mjs';

const MODULE = new URL('../../wasm/attnseq.js', import.meta.url);
const WASM = new URL('../../dist/attnseq-core.wasm', import.meta.url);
const FIX = (n) => new URL(`../data/parity/${n}.safetensors`, import.meta.url);
const REVERSE = new URL('../../models/reverse.safetensors', import.meta.url);

/** A separate instance of the package (its own engine, not yet initialised). */
const freshModule = freshPackage;
/** An ArrayBuffer transferred away (as to a Worker), or a view made before its buffer went. */
const detached = (n = 16) => {
  const b = new ArrayBuffer(n);
  structuredClone(b, { transfer: [b] });
  return b;
};
const detachedView = (View) => {
  const b = new ArrayBuffer(16);
  const v = new View(b);
  structuredClone(b, { transfer: [b] });
  return v;
};
function rejectsWith(mod, code, what) {
  return (e) => {
    assert.ok(e instanceof mod.AttnseqError, `${what}: ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, code, `${what}: ${e.message}`);
    return true;
  };
}
/** A local HTTP server answering every path with `body`, and a port that nothing listens on. */
async function server(body) {
  const srv = createServer((req, res) => res.end(body));
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const dead = createServer();
  await new Promise((r) => dead.listen(0, '127.0.0.1', r));
  const deadPort = dead.address().port;
  await new Promise((r) => dead.close(r));
  return { port: srv.address().port, deadPort, close: () => new Promise((r) => srv.close(r)) };
}

test('init() refuses what cannot be the engine with AttnseqError, and a later correct init() works', async () => {
  const wasm = await readFile(WASM);
  const { deadPort, close } = await server('');
  await close();
  const mod = await freshModule();
  const used = new Response(wasm);
  await used.arrayBuffer();
  const cases = [
    ['an unreachable locateFile URL', { locateFile: () => `http://127.0.0.1:${deadPort}/attnseq-core.wasm` }, 'LOAD_FAILED'],
    ['a locateFile path that does not exist', { locateFile: () => fileURLToPath(new URL('no-such.wasm', WASM)) }, 'LOAD_FAILED'],
    ['a locateFile that throws', { locateFile: () => { throw new Error('offline'); } }, 'LOAD_FAILED'],
    ['a locateFile that is not a function', { locateFile: 'attnseq-core.wasm' }, 'BAD_INPUT'],
    ['garbage wasmBinary', { wasmBinary: new TextEncoder().encode('<!doctype html> not found') }, 'LOAD_FAILED'],
    ['a detached wasmBinary', { wasmBinary: detached() }, 'BAD_INPUT'],
    ['a view of a detached wasmBinary', { wasmBinary: detachedView(Uint8Array) }, 'BAD_INPUT'],
    ['a spent Response as wasmBinary', { wasmBinary: used }, 'BAD_INPUT'],
  ];
  for (const [what, options, code] of cases) await assert.rejects(mod.init(options), rejectsWith(mod, code, what), what);
  // None of them initialised anything: a correct init() is still allowed, and the engine works.
  await mod.init({ wasmBinary: new Uint8Array(wasm) });
  const m = await mod.loadModel(FIX('gru_luong_dot'));
  const ref = await loadModel(FIX('gru_luong_dot'));
  assert.deepEqual(m.translate('w5 w6 w7').tokens, ref.translate('w5 w6 w7').tokens);
  await assert.rejects(mod.init(), rejectsWith(mod, 'ALREADY_INITIALISED', 'a second init'));
  m.dispose(); ref.dispose();

  // A failed init() leaves no options behind: loadModel() then uses the default location.
  const mod2 = await freshModule();
  await assert.rejects(mod2.init({ wasmBinary: new Uint8Array(8) }), rejectsWith(mod2, 'LOAD_FAILED', 'zero bytes'));
  const m2 = await mod2.loadModel(FIX('gru_luong_dot'));
  assert.ok(m2.translate('w5 w6').tokens.length > 0);
  m2.dispose();
});

test('a bad or foreign .wasm prints nothing on stderr and never leaves init() pending', async () => {
  // In a child process: before the fix, Emscripten printed "Aborted(...)" and a valid module that is
  // not the engine (here an empty one) threw inside its callback, an unhandled rejection.
  const script = `
    const mod = await import(${JSON.stringify(MODULE.href)});
    const out = [];
    for (const bytes of [[1, 2, 3, 4, 5, 6, 7, 8], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]]) {
      try { await mod.init({ wasmBinary: new Uint8Array(bytes) }); out.push('resolved'); }
      catch (e) { out.push((e instanceof mod.AttnseqError) + ' ' + e.code); }
    }
    const m = await mod.loadModel(new URL(${JSON.stringify(FIX('gru_luong_dot').href)}));
    out.push(m.translate('w5 w6 w7').text);
    console.log(JSON.stringify(out));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { timeout: 30000 });
  let out = '', err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const [code, signal] = await new Promise((r) => child.on('close', (c, s) => r([c, s])));
  assert.equal(signal, null, `the child was killed (${signal}): init() never settled; stderr: ${err}`);
  assert.ok(err === '', `stderr: ${err.slice(0, 300)}`);
  assert.equal(code, 0);
  const ref = await loadModel(FIX('gru_luong_dot'));
  assert.deepEqual(JSON.parse(out), ['true LOAD_FAILED', 'true LOAD_FAILED', ref.translate('w5 w6 w7').text]);
  ref.dispose();
});

test('loadModel(): an upper-case URL scheme loads; a spent Response or a detached buffer is BAD_INPUT', async () => {
  const bytes = await readFile(FIX('gru_luong_general'));
  const { port, close } = await server(bytes);
  try {
    const ref = await loadModel(bytes);
    const want = ref.translate('w5 w6 w7 w8 w4').tokens;
    for (const scheme of ['HTTP', 'Http']) {
      const m = await loadModel(`${scheme}://127.0.0.1:${port}/m.safetensors`);
      assert.deepEqual(m.translate('w5 w6 w7 w8 w4').tokens, want, scheme);
      m.dispose();
    }
    const spent = await fetch(`http://127.0.0.1:${port}/m.safetensors`);
    await spent.arrayBuffer();
    const cases = [
      ['a Response whose body was read', spent],
      ['a detached ArrayBuffer', detached()],
      ['a Uint8Array over a detached buffer', detachedView(Uint8Array)],
      ['a DataView over a detached buffer', detachedView(DataView)],
    ];
    for (const [what, src] of cases) await assert.rejects(loadModel(src), rejectsWith({ AttnseqError }, 'BAD_INPUT', what), what);
    // The module still loads and runs models.
    const again = await loadModel(`http://127.0.0.1:${port}/m.safetensors`);
    assert.deepEqual(again.translate('w5 w6 w7 w8 w4').tokens, want);
    again.dispose(); ref.dispose();
  } finally {
    await close();
  }
});

test('once its model is disposed, an Encoded or a Decoder refuses every call with DISPOSED', async () => {
  const model = await loadModel(FIX('gru_luong_general'));
  const enc = model.encode('w5 w6 w7');
  const dec = model.decoder(enc, { topk: 3 });
  dec.step();
  model.dispose();
  const disposed = (what) => (e) => e instanceof AttnseqError && e.code === 'DISPOSED' && /disposed/.test(e.message) || assert.fail(`${what}: ${e.code} ${e.message}`);
  const calls = {
    'model.decoder(enc)': () => model.decoder(enc),
    'model.translate(enc)': () => model.translate(enc),
    'model.encode': () => model.encode('w5'),
    'enc.memory()': () => enc.memory(),
    'dec.step()': () => dec.step(),
    'dec.step({ force: 5 })': () => dec.step({ force: 5 }),
    "dec.step({ force: 'w5' })": () => dec.step({ force: 'w5' }),
    'dec.step({ attention })': () => dec.step({ attention: [1, 0, 0] }),
    'dec.length': () => dec.length,
  };
  for (const [what, f] of Object.entries(calls)) assert.throws(f, disposed(what), what);
  // Disposal itself is allowed in any order and more than once.
  dec.dispose(); enc.dispose(); dec.dispose();
  assert.equal(dec.disposed && enc.disposed && model.disposed, true);

  // The same rule for an Encoded disposed under a live decoder; the model itself is unaffected.
  const m2 = await loadModel(FIX('gru_luong_general'));
  const e2 = m2.encode('w5 w6 w7');
  const d2 = m2.decoder(e2);
  const want = m2.translate('w5 w6 w7').tokens;
  e2.dispose();
  assert.throws(() => d2.step({ force: 5 }), disposed('step after enc.dispose()'));
  assert.throws(() => m2.translate(e2), disposed('translate(disposed enc)'));
  assert.deepEqual(m2.translate('w5 w6 w7').tokens, want);
  d2.dispose(); m2.dispose();
});

test('a temperature too small for softmax(logits / T) samples like greedy, not <pad>', async () => {
  const model = await loadModel(REVERSE);
  const greedy = model.translate('abcdefg');
  assert.equal(greedy.text, 'gfedcba', 'the shipped reverse model reverses');
  // 1e-38 makes logits / T overflow; 1e-40 is a float denormal whose 1/T is infinite.
  for (const temperature of [1e-30, 1e-38, 1e-40])
    for (const seed of [1, 2, 3]) {
      const r = model.translate('abcdefg', { temperature, seed });
      assert.deepEqual(r.tokens, greedy.tokens, `temperature ${temperature}, seed ${seed}`);
      assert.ok(Number.isFinite(r.score), `temperature ${temperature}: score ${r.score}`);
    }
  const enc = model.encode('abcdefg');
  const dec = model.decoder(enc, { temperature: 1e-38, seed: 1 });
  const steps = [];
  while (!dec.done) steps.push(dec.step().token);
  assert.deepEqual(steps, greedy.tokens);
  dec.dispose(); enc.dispose(); model.dispose();
});

// RFC 4180 reading: fields split on commas, records on CRLF, LF or a lone CR; quoted fields may hold
// any of them, with "" for a quote. Written here so the export is checked by an independent reader.
function parseCSV(text) {
  const records = [];
  let field = '', record = [], i = 0, quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"' && field === '') { quoted = true; i++; continue; }
    if (c === ',') { record.push(field); field = ''; i++; continue; }
    if (c === '\r' || c === '\n') {
      record.push(field); records.push(record); field = ''; record = [];
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    field += c; i++;
  }
  if (field !== '' || record.length) { record.push(field); records.push(record); }
  return records;
}

test('alignmentToCSV quotes fields holding CR (and LF, commas, quotes) so every reader sees the same cells', () => {
  const src = ['a\rb', 'c,d', 'say "hi"', 'e\r\nf', 'plain'];
  const tgt = ['x\r', '\ry', 'z'];
  const attention = Float32Array.from({ length: tgt.length * src.length }, (_, i) => (i % 7) / 8);
  const csv = alignmentToCSV({ srcTokens: src, tgtTokens: tgt, attention, rows: tgt.length, cols: src.length });
  const records = parseCSV(csv);
  assert.equal(records.length, tgt.length + 1, JSON.stringify(csv));
  assert.deepEqual(records[0], ['', ...src]);
  tgt.forEach((t, k) => {
    assert.equal(records[k + 1][0], t);
    assert.deepEqual(records[k + 1].slice(1).map(Number), Array.from(attention.subarray(k * src.length, (k + 1) * src.length)));
  });
});

test("alignmentToPharaoh: no links for a vanilla model (no attention), the heaviest source per row otherwise", async () => {
  for (const name of ['gru_none', 'lstm_none']) {
    const m = await loadModel(FIX(name));
    assert.equal(m.config.style, 'none');
    const r = m.translate('w5 w6 w7 w8');
    assert.ok(r.rows > 0);
    assert.equal(alignmentToPharaoh(r), '', name);
    m.dispose();
  }
  const m = await loadModel(FIX('gru_luong_dot'));
  const r = m.translate('w5 w6 w7 w8');
  const want = [];
  for (let k = 0; k < r.rows; k++) {
    const row = Array.from(r.attention.subarray(k * r.cols, (k + 1) * r.cols));
    want.push(`${row.indexOf(Math.max(...row))}-${k}`);
  }
  assert.equal(alignmentToPharaoh(r), want.join(' '));
  // A row without weight (here the second) links nothing; the others keep their target index.
  const partial = { ...r, attention: r.attention.slice() };
  partial.attention.fill(0, r.cols, 2 * r.cols);
  assert.equal(alignmentToPharaoh(partial), want.filter((_, k) => k !== 1).join(' '));
  m.dispose();
});

test('numHypotheses is checked against the beam asked for, and messages write numbers as people do', async () => {
  const model = await loadModel(FIX('gru_luong_general'));
  for (const [beam, n] of [[3, 5], [1, 2]]) {
    assert.throws(() => model.translate('w5 w6 w7', { beam, numHypotheses: n }),
      (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && e.message === `option 'numHypotheses' is ${n}; it must be in [0, beam = ${beam}]`,
      `beam ${beam}`);
  }
  assert.equal(model.translate('w5 w6 w7', { beam: 3, numHypotheses: 3 }).hypotheses.length, 3);
  assert.throws(() => model.translate('w5 w6 w7', { lengthPenalty: -3e38 }),
    (e) => e.code === 'BAD_INPUT' && e.message === "option 'lengthPenalty' is -3e+38; it must be in [0, 10]");
  model.dispose();
});
