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
