// The relaxed-SIMD products (wasm/relaxed.js, src/kernels/relaxed/products.cpp): where Node compiles
// relaxed SIMD (Node 20 only behind --experimental-wasm-relaxed-simd, so those runs are child
// processes with the flag), init() installs them after the engine's check, buildInfo() says so, and
// translations keep their answers and their batch-equals-alone bits; a module that is missing, not
// wasm, or wrong leaves the plain products with the reason in buildInfo(), and init() succeeds. Where
// relaxed SIMD does not compile (Node 20 without the flag), the module is not even read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshPackage } from './fresh.mjs';

const MODULE = new URL('../../wasm/attnseq.js', import.meta.url).href;
const CORE = new URL('../../dist/attnseq-core.wasm', import.meta.url);
const MODELS = new URL('../../models/', import.meta.url);
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-relaxed-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

// A module with the products' imports and signatures whose functions do nothing: wrong answers.
function doNothingModule() {
  const str = (s) => [s.length, ...Buffer.from(s)];
  const section = (id, bytes) => [id, bytes.length, ...bytes];
  const fn = (n) => [0x60, n, ...Array(n).fill(0x7f), 0x00];
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, ...fn(9), ...fn(8)]),
    ...section(2, [1, ...str('env'), ...str('memory'), 0x02, 0x00, 0x01]),
    ...section(3, [2, 0, 1]),
    ...section(7, [2, ...str('gemm_packed'), 0x00, 0, ...str('gemm_packed_acc'), 0x00, 1]),
    ...section(10, [2, 2, 0x00, 0x0b, 2, 0x00, 0x0b])]);
}

// Runs `body` (a module script: `mod` is the package) in Node with relaxed SIMD on; its JSON output.
async function withRelaxed(body) {
  const script = `const mod = await import(${JSON.stringify(MODULE)});\n${body}`;
  const child = spawn(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script], { timeout: 120000 });
  let out = '', err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const [code, signal] = await new Promise((r) => child.on('close', (c, s) => r([c, s])));
  assert.equal(signal, null, `killed by ${signal}; stderr: ${err}`);
  assert.equal(code, 0, `exit ${code}; stderr: ${err}`);
  assert.equal(err, '', 'nothing on stderr');
  return JSON.parse(out);
}

test('without relaxed SIMD the plain products run, and attnseq-relaxed.wasm is not read', async () => {
  const mod = await freshPackage();
  const asked = [];
  await mod.init({ locateFile: (f) => { asked.push(f); return f === 'attnseq-core.wasm' ? CORE.href : path.join(TMP, 'none.wasm'); } });
  assert.match(await mod.buildInfo(), /; products: plain SIMD \(relaxed SIMD: this JavaScript engine does not compile it\)$/);
  assert.deepEqual(asked, ['attnseq-core.wasm']);
  const bad = await freshPackage();
  await assert.rejects(bad.init({ relaxedSimd: true }), (e) => e.code === 'BAD_INPUT' && /relaxedSimd must be 'auto' or false, got true/.test(e.message));
  await assert.rejects(bad.init({ relaxedSIMD: false }), (e) => e.code === 'BAD_INPUT' && /relaxedSimd/.test(e.message));
});

test('with relaxed SIMD the checked products run: the same answers, and a batch row has its bits alone', async () => {
  const r = await withRelaxed(`
    const words = ${JSON.stringify(['attention', 'supercalifragilistic', 'colonel', 'pronunciation', 'a', 'xylophone', 'seoul', 'nguyen'])};
    const sentences = ['A man in a red shirt is riding a bike.', 'Two dogs play in the snow.', 'Jane went to the store.'];
    const run = async (m, inputs) => {
      const alone = inputs.map((x) => m.translate(x, { beam: 5 }));
      const batch = m.translateBatch(inputs, { beam: 5 });
      const same = alone.every((a, i) => a.text === batch[i].text && a.score === batch[i].score &&
        Buffer.from(a.attention.buffer).equals(Buffer.from(batch[i].attention.buffer)));
      return { texts: alone.map((a) => a.text), same };
    };
    const g2p = await mod.loadModel(new URL('g2p-en.safetensors', ${JSON.stringify(MODELS.href)}));
    const fr = await mod.loadModel(new URL('en-fr.safetensors', ${JSON.stringify(MODELS.href)}));
    console.log(JSON.stringify({ info: await mod.buildInfo(), g2p: await run(g2p, words), fr: await run(fr, sentences) }));`);
  assert.match(r.info, /; products: relaxed SIMD$/);
  assert.ok(r.g2p.same && r.fr.same, 'each source of a batch has the bits it has alone, on the relaxed path');
  // The plain path's answers, in this process (no flag): the same texts.
  const mod = await freshPackage();
  const g2p = await mod.loadModel(new URL('g2p-en.safetensors', MODELS));
  const fr = await mod.loadModel(new URL('en-fr.safetensors', MODELS));
  assert.deepEqual(r.g2p.texts, ['attention', 'supercalifragilistic', 'colonel', 'pronunciation', 'a', 'xylophone', 'seoul', 'nguyen'].map((w) => g2p.translate(w, { beam: 5 }).text));
  assert.deepEqual(r.fr.texts, ['A man in a red shirt is riding a bike.', 'Two dogs play in the snow.', 'Jane went to the store.'].map((s) => fr.translate(s, { beam: 5 }).text));
});

test('a relaxed module that is missing, not wasm, or wrong leaves the plain products, and init() succeeds', async () => {
  const wrong = path.join(TMP, 'wrong.wasm'), garbage = path.join(TMP, 'garbage.wasm');
  writeFileSync(wrong, doNothingModule());
  writeFileSync(garbage, 'not wasm');
  const cases = [
    [path.join(TMP, 'none.wasm'), /relaxed SIMD: attnseq-relaxed.wasm could not be read: could not read .*none.wasm/],
    [garbage, /relaxed SIMD: attnseq-relaxed.wasm is not a module this engine compiles\)$/],
    [wrong, /relaxed SIMD: gemm_packed with a bias: output 0 of row 0 is .*, the plain product's .*, beyond the bound .* \(1 x 1 rows by a 1 x 1 matrix\)\)$/],
  ];
  const mod = await freshPackage();
  const g2p = await mod.loadModel(new URL('g2p-en.safetensors', MODELS));
  for (const [file, why] of cases) {
    const r = await withRelaxed(`
      await mod.init({ locateFile: (n) => n === 'attnseq-core.wasm' ? ${JSON.stringify(CORE.href)} : ${JSON.stringify(file)} });
      const g2p = await mod.loadModel(new URL('g2p-en.safetensors', ${JSON.stringify(MODELS.href)}));
      console.log(JSON.stringify({ info: await mod.buildInfo(), text: g2p.translate('attention', { beam: 5 }).text }));`);
    assert.match(r.info, why);
    assert.equal(r.text, g2p.translate('attention', { beam: 5 }).text);
  }
  // Turned off, the module is not used even where it would be.
  const off = await withRelaxed(`
    await mod.init({ relaxedSimd: false });
    console.log(JSON.stringify({ info: await mod.buildInfo() }));`);
  assert.match(off.info, /; products: plain SIMD \(relaxed SIMD: turned off by init\(\{ relaxedSimd: false \}\)\)$/);
});
