// A module Worker importing the installed package (served under /node_modules/attnseq/) as is:
// translates the fixture it is sent and posts { tokens, attention } or { error } back.
import { loadModel } from '/node_modules/attnseq/wasm/attnseq.js';

self.onmessage = async ({ data: { fixture, source } }) => {
  try {
    const model = await loadModel(await fetch(fixture));
    const r = model.translate(source);
    self.postMessage({ tokens: r.tokens, attention: Array.from(r.attention) });
    model.dispose();
  } catch (e) {
    self.postMessage({ error: `${e.code ?? e.name}: ${e.message}` });
  }
};
