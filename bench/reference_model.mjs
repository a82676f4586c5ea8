// The bench's reference model as a .safetensors file written in JavaScript (docs/checkpoint-format.md;
// no metadata, so it loads as an ids-only model): GRU, luong, dot, no input feeding, no bridge, one
// layer, unidirectional, E = H, vocabulary V on both sides. Its F32 weights are fill(i) for the i-th
// float in file order, or 0 without fill. bench/js_step.mjs times it; tests/js/step-cost.test.mjs
// loads a zero one large enough to grow the wasm memory.
export function referenceModel(H, V, fill = null) {
  const gru = (p) => [
    [`${p}.weight_ih_l0`, [3 * H, H]], [`${p}.weight_hh_l0`, [3 * H, H]],
    [`${p}.bias_ih_l0`, [3 * H]], [`${p}.bias_hh_l0`, [3 * H]],
  ];
  const tensors = [
    ['encoder.embedding.weight', [V, H]], ...gru('encoder.rnn'),
    ['decoder.embedding.weight', [V, H]], ...gru('decoder.rnn'),
    ['decoder.combine.weight', [H, 2 * H]], ['decoder.combine.bias', [H]],
    ['decoder.out.weight', [V, H]], ['decoder.out.bias', [V]],
  ];
  const header = {};
  let off = 0;
  for (const [name, shape] of tensors) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + bytes] };
    off += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);  // data starts 8-byte aligned, as safetensors writers do
  const out = new Uint8Array(8 + json.length + off);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  if (fill) {
    const base = 8 + json.length;
    for (let i = 0; i < off / 4; i++) dv.setFloat32(base + 4 * i, fill(i), true);
  }
  return out;
}
