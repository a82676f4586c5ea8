// A module Worker importing the installed package (served under /node_modules/attnseq/) as is:
// translates the fixture it is sent, alone and in a batch with `extra`, and posts { tokens, attention,
// batch, batchAttention } (as package-page.js) or { error } back.
import { loadModel } from '/node_modules/attnseq/wasm/attnseq.js';

self.onmessage = async ({ data: { fixture, source, extra } }) => {
  try {
    const model = await loadModel(await fetch(fixture));
    const r = model.translate(source);
    const b = model.translateBatch([source, extra]);
    self.postMessage({ tokens: r.tokens, attention: Array.from(r.attention), batch: b.map((x) => x.tokens), batchAttention: Array.from(b[0].attention) });
    model.dispose();
  } catch (e) {
    self.postMessage({ error: `${e.code ?? e.name}: ${e.message}` });
  }
};
