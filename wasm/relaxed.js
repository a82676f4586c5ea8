// The relaxed-SIMD products (src/kernels/relaxed/products.cpp, dist/attnseq-relaxed.wasm): where this
// JavaScript engine compiles relaxed SIMD, a module of its own, instantiated on the engine's memory.
// Its functions go into the engine's function table, and the engine holds them to its own products
// before it uses them (src/kernels/dispatch.hpp). Nothing here fails init(): whatever goes wrong
// leaves the plain products, and buildInfo() says why. Where relaxed SIMD does not compile, the
// module is not even read.

// (module (func (param v128 v128 v128) (result v128)
//   local.get 0 local.get 1 local.get 2 f32x4.relaxed_madd))
const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00,
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b,
]);

/** Whether this JavaScript engine compiles relaxed SIMD (a tiny module that uses it validates). */
export function compilesRelaxedSimd() {
  try {
    return WebAssembly.validate(PROBE);
  } catch {
    return false;
  }
}

/**
 * Offers the relaxed products to the engine M (its wasm exports: `exports`); `readBytes()` gives
 * attnseq-relaxed.wasm. Resolves to "" when the engine uses them, else to why not (and M keeps its
 * plain products, with that reason for buildInfo()).
 */
export async function offerRelaxed(M, exports, readBytes) {
  const why = await install(M, exports, readBytes);
  if (why) M.usePlainProducts(why);
  return why;
}

async function install(M, exports, readBytes) {
  if (!compilesRelaxedSimd()) return 'this JavaScript engine does not compile it';
  let bytes;
  try {
    bytes = await readBytes();
  } catch (e) {
    return `attnseq-relaxed.wasm could not be read: ${e?.message ?? String(e)}`;
  }
  if (!WebAssembly.validate(bytes)) return 'attnseq-relaxed.wasm is not a module this engine compiles';
  // (Found by type: an optimised Emscripten build gives its exports one-letter names.)
  const memory = Object.values(exports).find((x) => x instanceof WebAssembly.Memory);
  const table = Object.values(exports).find((x) => x instanceof WebAssembly.Table);
  if (!memory || !table) return "the engine exports no memory or no function table";
  let rx;
  try {
    ({ instance: rx } = await WebAssembly.instantiate(bytes, { env: { memory } }));
  } catch (e) {
    return `attnseq-relaxed.wasm could not be instantiated: ${e?.message ?? String(e)}`;
  }
  const fns = [rx.exports.gemm_packed, rx.exports.gemm_packed_acc, rx.exports.gemm_q8r, rx.exports.gemm_acc_tile];
  if (fns.some((f) => typeof f !== 'function')) return 'attnseq-relaxed.wasm lacks its products';
  let at;
  try {
    at = table.grow(fns.length);
    fns.forEach((f, i) => table.set(at + i, f));
  } catch (e) {
    return `the engine's function table could not take them: ${e?.message ?? String(e)}`;
  }
  return M.useRelaxedProducts(at, at + 1, at + 2, at + 3);  // the engine's check: "" or what failed
}
