// Test page for web/train/panel.js and web/study/panel.js without the main demo page: mounts both
// panels with a stub api whose loadModelBytes() loads the bytes with the package (on this page) and
// writes what it got into #stub-out. Also records long tasks (> 50 ms) on the main thread.
// Query: ?n=N examples per length; ?models=BASE another models folder; ?vanilla=FILE another file
// name for the vanilla model (a missing one, for the missing-model test).
import { mount as mountTrain } from '/web/train/panel.js';
import { mount as mountStudy, DEFAULT_MODELS } from '/web/study/panel.js';

window.__longTasks = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
} catch { window.__longTasks = null; }

const out = document.getElementById('stub-out');
const api = {
  async loadModelBytes(bytes, label) {
    const { loadModel } = await import('/wasm/attnseq.js');
    const model = await loadModel(bytes);
    const probe = model.config.task === 'en-ko' ? 'Jane went to the store' : model.config.task === 'dates' ? '3 March 2018' : 'abcdefg';
    const r = model.translate(probe);
    out.textContent = `${label} → ${model.config.task} ${model.config.style}: "${probe}" → "${r.text}"`;
    out.dataset.label = label;
    out.dataset.bytes = String(bytes.length);
    out.dataset.task = model.config.task;
    model.dispose();
  },
};

const params = new URLSearchParams(location.search);
const modelsBase = params.get('models') ? new URL(params.get('models'), location.href).href : undefined;
window.__train = mountTrain(document.getElementById('train-panel'), api);
const vanilla = params.get('vanilla');
const models = vanilla ? DEFAULT_MODELS.map((m) => (m.key === 'vanilla' ? { ...m, file: vanilla } : m)) : undefined;
window.__study = mountStudy(document.getElementById('length-study'), api, { modelsBase, models, n: params.has('n') ? Number(params.get('n')) : undefined });
document.body.dataset.ready = '1';
