// Reading and editing a .safetensors file's header in the Node suites (u64 little-endian header
// length, the JSON header, then the data section, which these edits keep byte for byte).

/** The header of a file's bytes: { name: { dtype, shape, data_offsets }, __metadata__ }. */
export function headerOf(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  return JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
}

/** The same bytes with the header `edit(header)` returns (padded so the data stays 8-byte aligned). */
export function withHeader(bytes, edit) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  let text = JSON.stringify(edit(headerOf(bytes)));
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const json = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + json.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(bytes.subarray(8 + n), 8 + json.length);
  return out;
}

/** The same bytes with some __metadata__ entries added or replaced. */
export function withMetadata(bytes, extra) {
  return withHeader(bytes, (h) => ({ ...h, __metadata__: { ...h.__metadata__, ...extra } }));
}

/** A copy of the bytes with every value of the F32 tensor `name` replaced by `f(value, index)`. */
export function withF32(bytes, name, f) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  const t = headerOf(bytes)[name];
  if (!t || t.dtype !== 'F32') throw new Error(`no F32 tensor ${name}`);
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer, out.byteOffset + 8 + n + t.data_offsets[0], t.data_offsets[1] - t.data_offsets[0]);
  for (let i = 0; i < view.byteLength / 4; ++i) view.setFloat32(4 * i, f(view.getFloat32(4 * i, true), i), true);
  return out;
}

/**
 * A .safetensors file from tensors ({ name: { dtype: 'F32' | 'U8', shape, data: Float32Array | Uint8Array } },
 * written in the given order) and string metadata, as src/model/safetensors.cpp writes one.
 */
export function writeSafetensors(tensors, metadata) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const json = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const t of Object.values(tensors)) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}

/**
 * A tiny GRU luong/dot model (E = H = 4, random weights from a seed) whose sides read SentencePiece
 * pieces: `src` and `tgt` are .model files' bytes (both trained with pad 0, bos 1, eos 2, unk 3).
 */
export function spmCheckpoint(src, tgt, vocab = [8000, 8000], seed = 1) {
  let s = seed >>> 0;
  const rnd = (n) => Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 - 0.5) * 0.8;
  });
  const H = 4;
  const f32 = (shape) => ({ dtype: 'F32', shape, data: rnd(shape.reduce((a, b) => a * b, 1)) });
  const rnn = (prefix) => ({
    [`${prefix}.weight_ih_l0`]: f32([3 * H, H]), [`${prefix}.weight_hh_l0`]: f32([3 * H, H]),
    [`${prefix}.bias_ih_l0`]: f32([3 * H]), [`${prefix}.bias_hh_l0`]: f32([3 * H]),
  });
  return writeSafetensors({
    'encoder.embedding.weight': f32([vocab[0], H]), ...rnn('encoder.rnn'),
    'decoder.embedding.weight': f32([vocab[1], H]), ...rnn('decoder.rnn'),
    'decoder.combine.weight': f32([H, 2 * H]), 'decoder.combine.bias': f32([H]),
    'decoder.out.weight': f32([vocab[1], H]), 'decoder.out.bias': f32([vocab[1]]),
    'tokenizer.src': { dtype: 'U8', shape: [src.length], data: src },
    'tokenizer.tgt': { dtype: 'U8', shape: [tgt.length], data: tgt },
  }, {
    style: 'luong', score: 'dot', cell: 'gru', input_feeding: 'false', tokenizer: 'spm', src_tokenizer: 'spm',
    tgt_tokenizer: 'spm', pad: '0', bos: '1', eos: '2', unk: '3', name: 'tiny-spm',
  });
}
