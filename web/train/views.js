// The train panel's views: the progress bar and figures, the loss curve, the probe's alignment (with
// its hover readout and a table of the weights), and the status, error and evaluation lines. Drawing
// is coalesced into one animation frame, at most every REDRAW_MS, and sizes come from a
// ResizeObserver rather than clientWidth reads (which would force a synchronous layout of the page on
// every progress event; progress arrives ~15 times a second).
// Usage: const v = trainViews(section, probeText); v.reset(config), v.progress(q), v.flush(),
// v.placeholder(tokens), v.lastProbe; v.statusEl, v.errorEl, v.evalEl; the elements to lay out.
import { h, s, uid } from './dom.js';
import { renderLoss, renderMatrix, colorBar, cellAt } from './render.js';

const LOSS_H = 200;
const REDRAW_MS = 200;

// 12345.6 -> "12,346". (toLocaleString would load ICU locale data on first use: a long task mid-training.)
const thousands = (v) => String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function fmtStats(q) {
  const parts = [`step ${q.step} / ${q.steps}`];
  if (Number.isFinite(q.loss)) parts.push(`loss ${q.loss.toFixed(3)}`);
  if (Number.isFinite(q.tokenAccuracy)) parts.push(`token accuracy ${(q.tokenAccuracy * 100).toFixed(1)}%`);
  if (Number.isFinite(q.tokensPerSecond) && q.tokensPerSecond > 0) parts.push(`${thousands(q.tokensPerSecond)} tokens/s`);
  return parts.join(' · ');
}

export function trainViews(section, probeText) {
  const progressBar = h('progress', { class: 'ts-progress', max: 1, value: 0, 'aria-label': 'Training progress' });
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
  const evalEl = h('p', { class: 'ts-eval', 'aria-live': 'polite' });

  let points = [], lastProbe = null, planned = 0;
  let lossW = 480, pendingProbe = null, pendingStats = null, lossDirty = false, frame = 0, timer = 0, lastDraw = 0;

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

  const drawLoss = () => renderLoss(lossSvg, points, Math.max(260, Math.min(640, Math.floor(lossW))), LOSS_H, { xMax: planned });

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
    matrixSvg.setAttribute('aria-label', `Alignment of "${probeText()}" at step ${p.step}: rows are output tokens, columns are source tokens`);
    probeCaption.textContent = `Alignment of the probe at step ${p.step}`;
    probeOut.replaceChildren('Output: ', h('output', {}, p.text || '(empty)'));
    probeNote.textContent = p.style === 'none'
      ? 'This is a vanilla model: it has no attention (every row is zero); its decoder only ever sees the encoder\'s last state h_T.'
      : 'Rows: output tokens, one per decoder step. Columns: source tokens. Brighter = more weight.';
  }

  function flush() {
    if (frame || timer) { cancelAnimationFrame(frame); clearTimeout(timer); }
    frame = timer = 0;
    lastDraw = performance.now();
    if (pendingStats) {
      const q = pendingStats;
      pendingStats = null;
      progressBar.value = q.step;
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

  return {
    statusEl, errorEl, evalEl,
    progressRow: h('div', { class: 'ts-progress-row' }, progressBar, stats),
    figures: h('div', { class: 'ts-views' }, lossFig, matrixFig),
    get lastProbe() { return lastProbe; },
    /** Before training: the probe's source tokens as the matrix's empty columns. */
    placeholder(tokens) {
      renderMatrix(matrixSvg, { srcTokens: tokens, tgtTokens: [], rows: 0, cols: tokens.length, attention: [] });
      probeCaption.textContent = 'Alignment of the probe input (rows appear once training starts)';
    },
    /** A new run of `steps` steps: the views emptied. */
    reset(steps) {
      points = [];
      planned = steps;
      lastProbe = null;
      pendingProbe = pendingStats = null;
      evalEl.textContent = '';
      drawLoss();
      progressBar.max = steps;
      progressBar.value = 0;
      stats.textContent = `step 0 / ${steps}`;
    },
    /** A progress report of the run: drawn at the next redraw. */
    progress(q) {
      if (q.probe) pendingProbe = q.probe;
      if (q.step > 0) {
        points.push({ step: q.step, loss: q.loss });
        lossDirty = true;
      }
      pendingStats = q;
      schedule();
    },
    /** Draws what is pending now (the run ended). */
    flush,
  };
}
