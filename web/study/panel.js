// The length study: both shipped reverse models (attention and vanilla) translate N random strings
// at each length 5..60 in the engine's Worker; the chart shows exact-match accuracy against length.
// A vanilla seq2seq must squeeze the whole source into h_T, so it fails as strings grow; attention
// reads every h_i. Usage: mount(sectionElement, api?, { modelsBase, models, lengths, n }).
import { EngineClient } from '../train/client.js';
import { h, s, field, injectStyles, sectionHead } from '../train/dom.js';
import { lengthGrid } from './data.js';
import { accuracyChartLayout } from './layout.js';
import { chartAxes } from '../train/render.js';

export const DEFAULT_MODELS = [
  { key: 'attention', label: 'Attention (Luong, dot)', file: 'reverse.safetensors' },
  { key: 'vanilla', label: 'Vanilla (no attention)', file: 'reverse-vanilla.safetensors' },
];
const CHART_H = 260;
const MARKERS = ['circle', 'square'];

export function mount(section, _api = {}, opts = {}) {
  injectStyles();
  section.classList.add('ls-panel');
  const engine = new EngineClient();
  const base = new URL(opts.modelsBase ?? '../../models/', import.meta.url);
  const specs = (opts.models ?? DEFAULT_MODELS).map((m) => ({ ...m, url: new URL(m.file, base).href }));
  const lengths = opts.lengths ?? lengthGrid(60, 5);

  const nInput = h('input', { type: 'number', name: 'n', min: 1, max: 500, value: opts.n ?? 50, required: true, inputmode: 'numeric' });
  const run = h('button', { type: 'button', class: 'ls-run' }, 'Run the study');
  const stop = h('button', { type: 'button', class: 'ls-stop', disabled: true }, 'Stop');
  const form = h('form', { class: 'ts-form ls-form', novalidate: true, onsubmit: (e) => { e.preventDefault(); onRun(); } },
    h('div', { class: 'ts-grid' }, field('Examples per length', nInput, `lengths ${lengths[0]}–${lengths[lengths.length - 1]}, step ${lengths[1] - lengths[0] || 1}`)),
    h('div', { class: 'ts-buttons' }, run, stop));
  const progress = h('progress', { class: 'ts-progress', max: 1, value: 0, 'aria-label': 'Length study progress' });
  const stats = h('span', { class: 'ts-stats' }, 'not started');
  const statusEl = h('p', { class: 'ts-status', role: 'status', 'aria-live': 'polite' });
  const missingEl = h('div', { class: 'ls-missing', role: 'alert' });
  const chart = s('svg', { class: 'ls-chart', role: 'img', 'aria-label': 'Exact-match accuracy by source length' });
  const legend = h('ul', { class: 'ls-legend' });
  const tableBody = h('tbody');
  const table = h('table', { class: 'ls-table' },
    h('caption', {}, 'Exact match by source length'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Length'), specs.map((m) => h('th', { scope: 'col' }, m.label)))),
    tableBody);
  const figure = h('figure', { class: 'ts-figure ls-figure' },
    h('figcaption', {}, 'Exact-match accuracy against source length (reverse task)'), chart, legend);

  sectionHead(section, 'ls-heading', 'Long inputs: attention against a vanilla seq2seq',
    'Both models were trained on the same reverse task (strings of 1–60 letters a–t). ',
    'A vanilla seq2seq must squeeze the whole string into one vector, the encoder\'s last state h_T; ',
    'with attention the decoder looks back at every encoder state h_i. Run both on random strings of growing length and count exact reversals.');
  section.append(
    form, h('div', { class: 'ts-progress-row' }, progress, stats), statusEl, missingEl, figure,
    h('details', { class: 'ls-details' }, h('summary', {}, 'The numbers'), h('div', { class: 'ts-scroll' }, table)));

  let job = null;
  let results = Object.fromEntries(specs.map((m) => [m.key, { status: 'pending', points: [] }]));

  const chartWidth = () => Math.max(280, Math.min(720, Math.floor(figure.clientWidth || 560)));

  function draw() {
    const series = specs.map((m) => ({ key: m.key, label: m.label, points: results[m.key]?.points ?? [] }));
    const w = chartWidth();
    const L = accuracyChartLayout(series, w, CHART_H, { lengths });
    const p = L.plot;
    chart.setAttribute('viewBox', `0 0 ${w} ${CHART_H}`);
    chart.setAttribute('width', w);
    chart.setAttribute('height', CHART_H);
    const kids = chartAxes(L);
    kids.push(s('text', { class: 'ts-axis', x: p.x + p.w / 2, y: CHART_H - 4, 'text-anchor': 'middle' }, 'source length (letters)'));
    L.series.forEach((sr, i) => {
      if (!sr.points.length) return;
      const g = s('g', { class: `ls-series ls-series-${i}`, 'data-key': sr.key, 'data-points': sr.points.length,
        'data-accuracy': sr.points.map((q) => q.accuracy.toFixed(4)).join(',') });
      g.append(s('path', { class: 'ls-line', d: sr.path }));
      for (const q of sr.points) g.append(marker(i, q.cx, q.cy, `${sr.label}, length ${q.length}: ${(q.accuracy * 100).toFixed(0)}% exact`));
      kids.push(g);
    });
    chart.replaceChildren(...kids);
    legend.replaceChildren(...specs.map((m, i) => h('li', { class: `ls-series-${i}` },
      s('svg', { width: 34, height: 12, viewBox: '0 0 34 12', 'aria-hidden': 'true' },
        s('path', { class: 'ls-line', d: 'M1,6L33,6' }), marker(i, 17, 6)),
      ` ${m.label}`, results[m.key]?.status === 'missing' ? ' — model file missing' : '')));
    const rows = lengths.map((L0) => h('tr', {}, h('th', { scope: 'row' }, String(L0)), specs.map((m) => {
      const q = results[m.key]?.points.find((x) => x.length === L0);
      return h('td', {}, q ? `${(q.accuracy * 100).toFixed(0)}%` : '–');
    })));
    tableBody.replaceChildren(...rows);
  }

  function marker(i, cx, cy, title) {
    const t = title ? s('title', {}, title) : null;
    return MARKERS[i % 2] === 'circle'
      ? s('circle', { class: 'ls-marker', cx, cy, r: 3.5 }, t)
      : s('rect', { class: 'ls-marker', x: cx - 3.2, y: cy - 3.2, width: 6.4, height: 6.4 }, t);
  }

  function showMissing() {
    const bad = specs.filter((m) => ['missing', 'error'].includes(results[m.key]?.status));
    missingEl.replaceChildren(...bad.map((m) => {
      const r = results[m.key];
      return h('p', {}, r.status === 'missing'
        ? [h('strong', {}, `${m.label}: model not available. `), `${new URL(m.url).pathname} was not found on the server (HTTP 404), `,
          'so this curve is missing. The shipped models are produced by ', h('code', {}, `bash models/train.sh ${m.file.replace(/\.safetensors$/, '')}`), '.']
        : [h('strong', {}, `${m.label}: could not load. `), r.message]);
    }));
    section.dataset.missing = bad.map((m) => m.key).join(',');
  }

  async function onRun() {
    if (job) return;
    if (!nInput.checkValidity()) { form.reportValidity(); return; }
    const n = nInput.valueAsNumber;
    results = Object.fromEntries(specs.map((m) => [m.key, { status: 'pending', points: [] }]));
    missingEl.replaceChildren();
    draw();
    run.disabled = nInput.disabled = true;
    stop.disabled = false;
    section.dataset.state = 'running';
    statusEl.textContent = `Loading the models and translating ${n} strings at each of ${lengths.length} lengths…`;
    progress.value = 0;
    job = engine.start('study.run', [{ models: specs.map(({ key, url }) => ({ key, url })), lengths, n, seed: opts.seed ?? 7 }], (q) => {
      if (q.models) {
        for (const [k, v] of Object.entries(q.models)) results[k] = { ...v, points: [] };
        showMissing();
      }
      if (q.total) { progress.max = q.total; progress.value = q.done; }
      stats.textContent = q.total ? `${q.done} / ${q.total} translations${q.length ? ` · length ${q.length}` : ''}` : 'no model to run';
      if (q.point) { results[q.key].points.push(q.point); draw(); }
    });
    try {
      const r = await job.done;
      results = r.results;
      const ok = specs.filter((m) => results[m.key].status === 'ok');
      statusEl.textContent = !ok.length ? 'No model could be loaded, so there is nothing to plot.'
        : r.stopped ? `Stopped after ${r.done} of ${r.total} translations.`
          : `Done: ${r.total} translations. ${summary(ok)}`;
      section.dataset.state = r.stopped ? 'stopped' : 'done';
    } catch (e) {
      statusEl.textContent = `The study failed: ${e.code ?? 'ERROR'}: ${e.message}`;
      section.dataset.state = 'error';
    } finally {
      job = null;
      run.disabled = nInput.disabled = false;
      stop.disabled = true;
      showMissing();
      draw();
    }
  }

  function summary(ok) {
    const longest = lengths[lengths.length - 1];
    return ok.map((m) => {
      const q = results[m.key].points.find((x) => x.length === longest);
      return q ? `${m.label}: ${(q.accuracy * 100).toFixed(0)}% at length ${longest}.` : '';
    }).join(' ');
  }

  const idle = window.requestIdleCallback ?? ((f) => setTimeout(f, 200));
  idle(() => engine.call('info').catch(() => {}));  // start the worker and compile the engine early
  run.addEventListener('click', onRun);
  stop.addEventListener('click', async () => { if (job) { stop.disabled = true; await engine.cancel(job.id); } });
  new ResizeObserver(() => draw()).observe(figure);
  draw();
  return { engine, run: onRun, destroy() { engine.terminate(); } };
}
