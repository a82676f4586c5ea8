// The train panel: pick a task and a model configuration, train it in the engine's Worker, and
// watch the loss fall and the probe input's alignment form; then hand the model to the page's
// translator (api.loadModelBytes) or download it. Usage: mount(sectionElement, api).
// The form is controls.js, the figures views.js (layout in layout.js, drawing in render.js); this
// file runs the training: the engine in web/worker.js via client.js.
import { EngineClient } from './client.js';
import { h, injectStyles, sectionHead } from './dom.js';
import { TASKS, trainerOptions, modelLabel, modelFileName } from './tasks.js';
import { trainControls } from './controls.js';
import { trainViews } from './views.js';

export function mount(section, api = {}) {
  injectStyles();
  section.classList.add('ts-panel');
  const engine = new EngineClient();
  let job = null;          // the running train.run job
  let trained = null;      // { config, step } of the trainer in the worker
  let runs = 0;            // counts Start presses: a late evaluation of an older run is dropped

  // Before training: the probe's source tokens as the matrix's empty columns (this also lays out the
  // token font once, at mount, rather than in the middle of training).
  const placeholder = () => { if (!job) views.placeholder(controls.probeTokens()); };
  const controls = trainControls(placeholder);
  const views = trainViews(section, controls.probeText);
  const { form, config, start, stop } = controls;
  const { statusEl, errorEl, evalEl } = views;
  const useBtn = h('button', { type: 'button', class: 'ts-use', disabled: true }, 'Use in translator');
  const downloadBtn = h('button', { type: 'button', class: 'ts-download', disabled: true }, 'Download .safetensors');

  sectionHead(section, 'ts-heading', 'Train a model in your browser',
    'Train a small attention seq2seq right here (in a background thread) and watch the alignment form. ',
    'Each configuration is the one the engine documents: Luong attention queries the new decoder state, Bahdanau the previous one, vanilla has no attention at all.');
  section.append(
    form, views.progressRow, statusEl, errorEl, views.figures,
    h('div', { class: 'ts-buttons' }, useBtn, downloadBtn), evalEl);
  placeholder();

  function setRunning(on) {
    config.disabled = on;
    start.disabled = on;
    stop.disabled = !on;
    section.dataset.state = on ? 'running' : trained ? 'trained' : 'idle';
  }

  async function onStart() {
    errorEl.textContent = '';
    if (!form.checkValidity()) { form.reportValidity(); return; }
    const c = controls.readConfig();
    runs++;
    views.reset(c.steps);
    statusEl.textContent = `Training ${TASKS[c.task].label} with ${c.style === 'none' ? 'no attention' : `${c.style}/${c.score} attention`}…`;
    trained = null;
    useBtn.disabled = downloadBtn.disabled = true;
    setRunning(true);
    job = engine.start('train.run', [{ options: trainerOptions(c), probe: c.probe, probeEvery: c.every }], (q) => {
      if (q.step > 0) {
        trained = { config: c, step: q.step };
        useBtn.disabled = downloadBtn.disabled = false;
      }
      views.progress(q);
    });
    try {
      const r = await job.done;
      views.flush();
      statusEl.textContent = r.stopped ? `Stopped at step ${r.step} of ${r.steps}.` : `Finished ${r.steps} steps.`;
      job = null;
      setRunning(false);
      if (trained) await evaluate();
    } catch (e) {
      job = null;
      setRunning(false);
      errorEl.textContent = `${e.code ?? 'ERROR'}: ${e.message}`;
      statusEl.textContent = 'Training did not run.';
    }
  }

  async function evaluate() {
    const run = runs;
    evalEl.textContent = 'Scoring on 200 held-out examples…';
    try {
      const ev = await engine.call('train.evaluate', 200);
      if (run !== runs) return;
      const parts = [`exact match ${(ev.exactMatch * 100).toFixed(1)}%`, `token accuracy ${(ev.tokenAccuracy * 100).toFixed(1)}%`];
      if (Number.isFinite(ev.aer) && trained?.config.style !== 'none') parts.push(`alignment error rate ${ev.aer.toFixed(3)}`);
      evalEl.textContent = `Held-out (${ev.n} examples, greedy): ${parts.join(', ')}.`;
      section.dataset.exactMatch = String(ev.exactMatch);
    } catch (e) {
      if (run === runs) evalEl.textContent = `Evaluation failed: ${e.message}`;
    }
  }

  async function onStop() {
    if (!job) return;
    stop.disabled = true;
    statusEl.textContent = 'Stopping…';
    await engine.cancel(job.id);
  }

  async function saveBytes() {
    const { config: c } = trained;
    const { bytes, step } = await engine.call('train.save');
    return { bytes, label: modelLabel(c, step), file: modelFileName(c, step) };
  }

  async function onUse() {
    if (!trained) return;
    errorEl.textContent = '';
    if (typeof api?.loadModelBytes !== 'function') {
      errorEl.textContent = 'There is no translator on this page to hand the model to; download it instead.';
      return;
    }
    useBtn.disabled = true;
    try {
      const { bytes, label } = await saveBytes();
      await api.loadModelBytes(bytes, label);
      statusEl.textContent = `Loaded into the translator as "${label}".`;
    } catch (e) {
      errorEl.textContent = `Could not use the model: ${e.message}`;
    } finally {
      useBtn.disabled = !trained;
    }
  }

  async function onDownload() {
    if (!trained) return;
    errorEl.textContent = '';
    try {
      const { bytes, file } = await saveBytes();
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      const a = h('a', { href: url, download: file, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 30000);
      statusEl.textContent = `Saved ${file} (${(bytes.length / 1024).toFixed(0)} KiB).`;
    } catch (e) {
      errorEl.textContent = `Could not save the model: ${e.message}`;
    }
  }

  // Start the worker (and compile the engine) now, off the main thread, not when Start is pressed.
  const idle = window.requestIdleCallback ?? ((f) => setTimeout(f, 200));
  idle(() => engine.call('info').then((i) => { section.dataset.engine = i.build; }, () => {}));

  start.addEventListener('click', onStart);
  stop.addEventListener('click', onStop);
  useBtn.addEventListener('click', onUse);
  downloadBtn.addEventListener('click', onDownload);
  setRunning(false);

  return {
    engine,
    get running() { return !!job; },
    get lastProbe() { return views.lastProbe; },
    destroy() { engine.terminate(); },
  };
}
