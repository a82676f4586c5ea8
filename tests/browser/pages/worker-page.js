// Starts a module Worker that uses the package, and a direct import on the page with init({locateFile}).
const out = document.getElementById('out');
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = async (e) => {
  const { init, loadModel } = await import('/wasm/attnseq.js');
  await init({ locateFile: (f) => `/dist/${f}` });
  const model = await loadModel(await fetch('/tests/data/parity/gru_luong_general.safetensors'));
  const page = model.translate('w5 w6 w7 w8 w4');
  out.textContent = JSON.stringify({ worker: e.data, page: { tokens: page.tokens, attention: Array.from(page.attention) } });
  out.dataset.done = '1';
};
worker.onerror = (e) => { out.textContent = 'worker error: ' + e.message; out.dataset.done = '1'; };
worker.postMessage('go');
