// The train panel: pick a task and a model configuration, train it in the engine's Worker, and
// watch the loss fall and the probe input's alignment form; then hand the model to the page's
// translator (api.loadModelBytes) or download it. Usage: mount(sectionElement, api).
// Layout is in layout.js, drawing in render.js, the engine in web/worker.js via client.js.
import { EngineClient } from './client.js';
import { h, s, uid, field, select, injectStyles } from './dom.js';
import { TASKS, trainerOptions, modelLabel, modelFileName } from './tasks.js';
import { renderLoss, renderMatrix, colorBar, cellAt } from './render.js';

const LOSS_H = 200;
const REDRAW_MS = 200;

// 12345.6 -> "12,346". (toLocaleString would load ICU locale data on first use: a long task mid-training.)
const thousands = (v) => String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export function mount(section, api = {}) {
  injectStyles();
  section.classList.add('ts-panel');
  const engine = new EngineClient();

  // ---- controls ----
  const task = select('task', Object.entries(TASKS).map(([k, t]) => [k, t.label]), 'dates');
  const style = select('style', [['luong', 'Luong (query sₖ)'], ['bahdanau', 'Bahdanau (query sₖ₋₁)'], ['none', 'None (vanilla)']], 'luong');
  const score = select('score', [['dot', 'dot ⟨s, hᵢ⟩'], ['general', 'general sᵀWhᵢ'], ['additive', 'additive vᵀtanh(…)']], 'dot');
  const cell = select('cell', [['gru', 'GRU'], ['lstm', 'LSTM']], 'gru');
  const hidden = select('hidden', [16, 32, 64, 128].map((v) => [String(v), String(v)]), '64');
  const steps = h('input', { type: 'number', name: 'steps', min: 10, max: 20000, step: 1, required: true, inputmode: 'numeric' });
  const lr = h('input', { type: 'number', name: 'lr', min: 0.0001, max: 0.05, step: 'any', required: true, inputmode: 'decimal' });
  const probe = h('input', { type: 'text', name: 'probe', autocomplete: 'off', spellcheck: 'false', required: true, maxlength: 60 });
  const every = h('input', { type: 'number', name: 'every', min: 1, max: 1000, value: 25, required: true, inputmode: 'numeric' });
  const about = h('p', { class: 'ts-about' });
  const start = h('button', { type: 'button', class: 'ts-start' }, 'Start training');
  const stop = h('button', { type: 'button', class: 'ts-stop', disabled: true }, 'Stop');
  const config = h('fieldset', { class: 'ts-config' }, h('legend', {}, 'Task and model'),
    h('div', { class: 'ts-grid' },
      field('Task', task), field('Attention', style), field('Score', score), field('Cell', cell),
      field('Hidden size', hidden), field('Steps', steps), field('Learning rate', lr),
      field('Redraw every (steps)', every, 'how often the alignment is redrawn')),
    field('Probe input', probe, 'its alignment is redrawn as the model trains'),
    about);
  const form = h('form', { class: 'ts-form', novalidate: true, onsubmit: (e) => e.preventDefault() },
    config, h('div', { class: 'ts-buttons' }, start, stop));

  // ---- progress, views, results ----
  const progress = h('progress', { class: 'ts-progress', max: 1, value: 0, 'aria-label': 'Training progress' });
  const stats = h('span', { class: 'ts-stats' }, 'not started');
  const statusEl = h('p', { class: 'ts-status', role: 'status', 'aria-live': 'polite' });
  const errorEl = h('p', { class: 'ts-error', role: 'alert' });
  const lossSvg = s('svg', { class: 'ts-loss', role: 'img', 'aria-label': 'Training loss by step (log scale)' });
  const lossFig = h('figure', { class: 'ts-figure ts-loss-figure' }, h('figcaption', {}, 'Training loss (cross-entropy per token, log scale)'), lossSvg);
  const matrixSvg = s('svg', { class: 'ts-matrix', role: 'img', 'aria-label': 'Alignment of the probe input' });
  const probeCaption = h('figcaption', {}, 'Alignment of the probe input');
  const probeOut = h('p', { class: 'ts-probe-out' });
  const probeNote = h('p', { class: 'ts-note' });
  const hoverOut = h('p', { class: 'ts-hover', 'aria-hidden': 'true' }, '\u00a0');
  const matrixFig = h('figure', { class: 'ts-figure ts-probe-figure' }, probeCaption,
    h('div', { class: 'ts-scroll' }, matrixSvg), hoverOut, probeOut, probeNote, colorBar(uid('ts-viridis')));
  // Hover readout (Seq2Seq-Vis style): which output token looked at which source token, how much.
  matrixSvg.addEventListener('pointermove', (e) => {
    const c = cellAt(matrixSvg, e);
    hoverOut.textContent = c ? `output "${c.tgt}" ← source "${c.src}": ${c.value.toFixed(3)}` : '\u00a0';
  });
  matrixSvg.addEventListener('pointerleave', () => { hoverOut.textContent = '\u00a0'; });
  // The same weights as a table, for keyboard and screen-reader users (built only while open).
  const weightsTable = h('table', { class: 'ls-table ts-weights' });
  const weightsDetails = h('details', { class: 'ts-details' }, h('summary', {}, 'The weights as a table'), h('div', { class: 'ts-scroll' }, weightsTable));
  weightsDetails.addEventListener('toggle', () => fillWeights());
  matrixFig.append(weightsDetails);
  function fillWeights() {
    if (!weightsDetails.open || !lastProbe) return;
    const p = lastProbe;
    const show = (x) => (x === ' ' ? '·' : x);
    weightsTable.replaceChildren(
      h('caption', {}, `Step ${p.step}: rows are output tokens, columns source tokens`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'output'), p.srcTokens.map((x) => h('th', { scope: 'col' }, show(x))))),
      h('tbody', {}, p.tgtTokens.map((y, k) => h('tr', {}, h('th', { scope: 'row' }, show(y)),
        p.srcTokens.map((_, i) => h('td', {}, p.attention[k * p.cols + i].toFixed(2)))))));
  }
  const useBtn = h('button', { type: 'button', class: 'ts-use', disabled: true }, 'Use in translator');
  const downloadBtn = h('button', { type: 'button', class: 'ts-download', disabled: true }, 'Download .safetensors');
  const evalEl = h('p', { class: 'ts-eval', 'aria-live': 'polite' });

  if (!section.querySelector('h2')) section.append(h('h2', { id: uid('ts-heading') }, 'Train a model in your browser'));
  const heading = section.querySelector('h2');
  if (!heading.id) heading.id = uid('ts-heading');
  section.setAttribute('aria-labelledby', heading.id);
  section.append(
    h('p', { class: 'ts-lede' }, 'Train a small attention seq2seq right here (in a background thread) and watch the alignment form. ',
      'Each configuration is the one the engine documents: Luong attention queries the new decoder state, Bahdanau the previous one, vanilla has no attention at all.'),
    form,
    h('div', { class: 'ts-progress-row' }, progress, stats), statusEl, errorEl,
    h('div', { class: 'ts-views' }, lossFig, matrixFig),
    h('div', { class: 'ts-buttons' }, useBtn, downloadBtn), evalEl);

  // ---- state ----
  let job = null;          // the running train.run job
  let trained = null;      // { config, step } of the trainer in the worker
  let points = [];
  let lastProbe = null;
  let runs = 0;            // counts Start presses: a late evaluation of an older run is dropped

  const readConfig = () => ({
    task: task.value, style: style.value, score: score.value, cell: cell.value, hidden: Number(hidden.value),
    steps: steps.valueAsNumber, lr: lr.valueAsNumber, probe: probe.value, every: every.valueAsNumber,
  });

  function applyTask() {
    const t = TASKS[task.value];
    steps.value = t.steps;
    lr.value = t.lr;
    hidden.value = String(t.hidden);
    probe.value = t.probe;
    about.textContent = t.about;
  }
  function applyStyle() { score.disabled = style.value === 'none'; }
  // Before training: the probe's source tokens as the matrix's empty columns (this also lays out
  // the token font once, at mount, rather than in the middle of training).
  function placeholder() {
    if (job) return;
    const toks = task.value === 'en-ko' ? probe.value.split(/\s+/).filter(Boolean) : Array.from(probe.value);
    renderMatrix(matrixSvg, { srcTokens: toks, tgtTokens: [], rows: 0, cols: toks.length, attention: [] });
    probeCaption.textContent = 'Alignment of the probe input (rows appear once training starts)';
  }
  task.addEventListener('change', () => { applyTask(); placeholder(); });
  probe.addEventListener('input', placeholder);
  style.addEventListener('change', applyStyle);
  applyTask();
  applyStyle();
  placeholder();

  // Drawing is coalesced into one animation frame, and sizes come from a ResizeObserver rather than
  // clientWidth reads (which would force a synchronous layout of the page on every progress event).
  // Progress arrives ~15 times a second; the views are redrawn at most every REDRAW_MS.
  let lossW = 480, pendingProbe = null, pendingStats = null, lossDirty = false, frame = 0, timer = 0, lastDraw = 0, planned = 0;
  const drawLoss = () => renderLoss(lossSvg, points, Math.max(260, Math.min(640, Math.floor(lossW))), LOSS_H, { xMax: planned });
  function flush() {
    frame = 0;
    lastDraw = performance.now();
    if (pendingStats) {
      const q = pendingStats;
      pendingStats = null;
      progress.value = q.step;
      stats.textContent = fmtStats(q);
      section.dataset.step = String(q.step);
    }
    if (lossDirty) { lossDirty = false; drawLoss(); }
    if (pendingProbe) { const p = pendingProbe; pendingProbe = null; drawProbe(p); }
  }
  function schedule() {
    if (frame || timer) return;
    const wait = REDRAW_MS - (performance.now() - lastDraw);
    if (wait <= 0) frame = requestAnimationFrame(flush);
    else timer = setTimeout(() => { timer = 0; frame = requestAnimationFrame(flush); }, wait);
  }
  new ResizeObserver((entries) => {
    const w = entries[entries.length - 1].contentRect.width;
    if (w > 0 && Math.abs(w - lossW) >= 1) { lossW = w; lossDirty = true; schedule(); }
  }).observe(lossFig);
  drawLoss();

  function drawProbe(p) {
    if (!p) return;
    if (p.error) {
      probeOut.textContent = `The probe could not be translated: ${p.error.message}`;
      return;
    }
    lastProbe = p;
    renderMatrix(matrixSvg, p);
    fillWeights();
    matrixSvg.dataset.step = String(p.step);
    matrixSvg.setAttribute('aria-label', `Alignment of "${probe.value}" at step ${p.step}: rows are output tokens, columns are source tokens`);
    probeCaption.textContent = `Alignment of the probe at step ${p.step}`;
    probeOut.replaceChildren('Output: ', h('output', {}, p.text || '(empty)'));
    probeNote.textContent = p.style === 'none'
      ? 'This is a vanilla model: it has no attention (every row is zero); its decoder only ever sees the encoder\'s last state h_T.'
      : 'Rows: output tokens, one per decoder step. Columns: source tokens. Brighter = more weight.';
  }

  function fmtStats(q) {
    const parts = [`step ${q.step} / ${q.steps}`];
    if (Number.isFinite(q.loss)) parts.push(`loss ${q.loss.toFixed(3)}`);
    if (Number.isFinite(q.tokenAccuracy)) parts.push(`token accuracy ${(q.tokenAccuracy * 100).toFixed(1)}%`);
    if (Number.isFinite(q.tokensPerSecond) && q.tokensPerSecond > 0) parts.push(`${thousands(q.tokensPerSecond)} tokens/s`);
    return parts.join(' · ');
  }

  function setRunning(on) {
    config.disabled = on;
    start.disabled = on;
    stop.disabled = !on;
    section.dataset.state = on ? 'running' : trained ? 'trained' : 'idle';
  }

  async function onStart() {
    errorEl.textContent = '';
    if (!form.checkValidity()) { form.reportValidity(); return; }
    const c = readConfig();
    runs++;
    points = [];
    planned = c.steps;
    lastProbe = null;
    pendingProbe = pendingStats = null;
    evalEl.textContent = '';
    drawLoss();
    progress.max = c.steps;
    progress.value = 0;
    stats.textContent = `step 0 / ${c.steps}`;
    statusEl.textContent = `Training ${TASKS[c.task].label} with ${c.style === 'none' ? 'no attention' : `${c.style}/${c.score} attention`}…`;
    trained = null;
    useBtn.disabled = downloadBtn.disabled = true;
    setRunning(true);
    job = engine.start('train.run', [{ options: trainerOptions(c), probe: c.probe, probeEvery: c.every }], (q) => {
      if (q.probe) pendingProbe = q.probe;
      if (q.step > 0) {
        points.push({ step: q.step, loss: q.loss });
        lossDirty = true;
        trained = { config: c, step: q.step };
        useBtn.disabled = downloadBtn.disabled = false;
      }
      pendingStats = q;
      schedule();
    });
    try {
      const r = await job.done;
      if (frame || timer) { cancelAnimationFrame(frame); clearTimeout(timer); timer = 0; }
      flush();
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
    get lastProbe() { return lastProbe; },
    destroy() { engine.terminate(); },
  };
}
