// A module Worker using the npm package's ES module as is.
import { loadModel } from '/wasm/attnseq.js';

self.onmessage = async () => {
  try {
    const model = await loadModel(await fetch('/tests/data/parity/gru_luong_general.safetensors'));
    const r = model.translate('w5 w6 w7 w8 w4');
    self.postMessage({ tokens: r.tokens, attention: Array.from(r.attention) });
    model.dispose();
  } catch (e) {
    self.postMessage({ error: `${e.code}: ${e.message}` });
  }
};
