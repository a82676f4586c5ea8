// The relaxed-SIMD products (wasm/relaxed.js, src/kernels/relaxed/products.cpp) in Node, which
// compiles relaxed SIMD only behind --experimental-wasm-relaxed-simd (so those runs are child
// processes with the flag): the module's kernels against reference loops written here, and the
// engine's own check agreeing with them (Node 20 gets the int8 dot product wrong, so there the check
// must keep the plain products); a module that is missing, not wasm, or wrong leaves the plain
// products with the reason in buildInfo(), and init() succeeds. Where relaxed SIMD does not compile
// (Node without the flag), the module is not even read. tests/browser/relaxed.test.mjs runs the
// relaxed path end to end in Chromium.
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
    ...section(1, [4, ...fn(9), ...fn(8), ...fn(12), ...fn(10)]),
    ...section(2, [1, ...str('env'), ...str('memory'), 0x02, 0x00, 0x01]),
    ...section(3, [4, 0, 1, 2, 3]),
    ...section(7, [4, ...str('gemm_packed'), 0x00, 0, ...str('gemm_packed_acc'), 0x00, 1, ...str('gemm_q8r'), 0x00, 2,
      ...str('gemm_acc_tile'), 0x00, 3]),
    ...section(10, [4, 2, 0x00, 0x0b, 2, 0x00, 0x0b, 2, 0x00, 0x0b, 2, 0x00, 0x0b])]);
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

test('with relaxed SIMD, Node runs the module\'s products against reference loops, and the engine\'s check agrees', async () => {
  // The module on its own memory, its kernels on known inputs: gemm_packed and gemm_acc_tile (fused
  // multiply-adds, within the bound of kernels/dispatch.hpp of the exact sum) and gemm_q8r (int8 x 7-bit: exactly the
  // reference's float, as ref::gemm_q8r computes it). Node 20's V8 gets the 8-bit dot product wrong
  // (docs/toolchain.md): there the engine's own check must refuse the module, naming gemm_q8r, and keep
  // the plain products; where the dot product is right, it must take them.
  const r = await withRelaxed(`
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(${JSON.stringify(new URL('../../dist/attnseq-relaxed.wasm', import.meta.url).pathname)});
    const memory = new WebAssembly.Memory({ initial: 8 });
    const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
    const { gemm_packed, gemm_q8r, gemm_acc_tile } = instance.exports;
    const f32 = new Float32Array(memory.buffer), i8 = new Int8Array(memory.buffer), u8 = new Uint8Array(memory.buffer);
    const i32 = new Int32Array(memory.buffer);
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const [X, P, BIAS, C, CORR, XS, WS] = [1 << 10, 1 << 16, 200 << 10, 220 << 10, 240 << 10, 250 << 10, 260 << 10];
    let f32Worst = 0;  // the largest |error| / bound of the fused product
    for (const [B, M, N] of [[1, 1, 1], [1, 17, 7], [2, 40, 75], [3, 16, 32], [5, 5, 1]]) {
      const W = Array.from({ length: M * N }, () => Math.fround(2 * rnd() - 1));
      const x = Array.from({ length: B * N }, () => Math.fround(2 * rnd() - 1));
      const b = Array.from({ length: M }, () => Math.fround(2 * rnd() - 1));
      f32.set(x, X / 4);
      f32.set(b, BIAS / 4);
      for (let k = 0; k < Math.ceil(M / 16); k++)  // panels of 16 rows, column by column
        for (let n = 0; n < N; n++)
          for (let q = 0; q < 16; q++) f32[P / 4 + (k * N + n) * 16 + q] = k * 16 + q < M ? W[(k * 16 + q) * N + n] : 0;
      gemm_packed(X, N, P, BIAS, C, M, B, M, N);
      for (let row = 0; row < B; row++)
        for (let m = 0; m < M; m++) {
          let s = b[m], mag = Math.abs(b[m]);
          for (let n = 0; n < N; n++) { s += W[m * N + n] * x[row * N + n]; mag += Math.abs(W[m * N + n] * x[row * N + n]); }
          f32Worst = Math.max(f32Worst, Math.abs(f32[C / 4 + row * M + m] - s) / ((N + 1) * mag * 2 ** -23 + 1e-30));
        }
    }
    // gemm_acc_tile: C (rows, 4 nv) += A (rows, K) Bm (K, 4 nv), A strided both ways (as dY W and as
    // dY^T X read it), against the exact sums.
    let accWorst = 0;
    for (const [rows, nv, K, rsa, csa] of [[1, 1, 1, 1, 1], [4, 2, 33, 37, 1], [3, 1, 5, 1, 9], [4, 2, 17, 1, 4], [2, 2, 64, 70, 1]]) {
      const ldb = 4 * nv + 3, ldc = 4 * nv + 1;
      const A = Array.from({ length: rows * rsa + K * csa }, () => Math.fround(2 * rnd() - 1));
      const Bm = Array.from({ length: K * ldb }, () => Math.fround(2 * rnd() - 1));
      const C0 = Array.from({ length: rows * ldc }, () => Math.fround(2 * rnd() - 1));
      f32.set(A, X / 4);
      f32.set(Bm, P / 4);
      f32.set(C0, C / 4);
      gemm_acc_tile(rows, nv, X, rsa, csa, P, ldb, C, ldc, K);
      for (let r = 0; r < rows; r++)
        for (let j = 0; j < ldc; j++) {
          const got = f32[C / 4 + r * ldc + j];
          if (j >= 4 * nv) { if (got !== C0[r * ldc + j]) accWorst = 1e9; continue; }
          let s = C0[r * ldc + j], mag = Math.abs(s);
          for (let k = 0; k < K; k++) { const t = A[r * rsa + k * csa] * Bm[k * ldb + j]; s += t; mag += Math.abs(t); }
          accWorst = Math.max(accWorst, Math.abs(got - s) / ((K + 1) * mag * 2 ** -23 + 1e-30));
        }
    }
    let q8rRight = true;
    for (const [B, M, N] of [[1, 1, 1], [2, 5, 7], [5, 33, 130]]) {
      const quads = Math.ceil(N / 4), ldu = 4 * quads;
      const Q = Array.from({ length: M * N }, () => Math.floor(rnd() * 255) - 127);
      const U = Array.from({ length: B * ldu }, () => Math.floor(rnd() * 128));
      const xs = Array.from({ length: B }, () => Math.fround(rnd())), ws = Array.from({ length: M }, () => Math.fround(rnd() / 64));
      const bias = Array.from({ length: M }, () => Math.fround(2 * rnd() - 1));
      for (let k = 0; k < Math.ceil(M / 32); k++)  // panels of 32 rows, each column quad's rows in order
        for (let c = 0; c < quads; c++)
          for (let q = 0; q < 32; q++)
            for (let j = 0; j < 4; j++) {
              const m = k * 32 + q, n = 4 * c + j;
              i8[P + ((k * quads + c) * 32 + q) * 4 + j] = m < M && n < N ? Q[m * N + n] : 0;
            }
      for (let m = 0; m < M; m++) i32[CORR / 4 + m] = 64 * Q.slice(m * N, (m + 1) * N).reduce((a, v) => a + v, 0);
      u8.set(U, X);
      f32.set(xs, XS / 4);
      f32.set(ws, WS / 4);
      f32.set(bias, BIAS / 4);
      gemm_q8r(X, ldu, XS, P, CORR, WS, BIAS, C, M, B, M, N);
      for (let row = 0; row < B; row++)
        for (let m = 0; m < M; m++) {
          let s = 0;
          for (let n = 0; n < N; n++) s += Q[m * N + n] * U[row * ldu + n];
          const want = Math.fround(Math.fround(Math.fround(s - i32[CORR / 4 + m]) * Math.fround(xs[row] * ws[m])) + bias[m]);
          if (f32[C / 4 + row * M + m] !== want) q8rRight = false;
        }
    }
    await mod.init();
    console.log(JSON.stringify({ f32Worst, accWorst, q8rRight, info: await mod.buildInfo() }));`);
  assert.ok(r.f32Worst <= 1, `the fused product within its bound of the exact sum (worst ${r.f32Worst} of the bound)`);
  assert.ok(r.accWorst <= 1, `gemm_acc's tile within its bound of the exact sum, nothing past its columns written (worst ${r.accWorst})`);
  if (r.q8rRight) assert.match(r.info, /; products: relaxed SIMD$/);
  else assert.match(r.info, /; products: plain SIMD \(relaxed SIMD: gemm_q8r: output 0 of row 0 is .*, the reference's .*\)$/);
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
