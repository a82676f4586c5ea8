// The train panel's controls: the task and model form (each task's defaults from tasks.js), Start and
// Stop. Usage: const c = trainControls(onProbeChange); c.form, c.config, c.start, c.stop, c.readConfig().
// onProbeChange() is called when the task or the probe input changes (the views redraw its columns).
import { h, field, select } from './dom.js';
import { TASKS } from './tasks.js';

export function trainControls(onProbeChange) {
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

  function applyTask() {
    const t = TASKS[task.value];
    steps.value = t.steps;
    lr.value = t.lr;
    hidden.value = String(t.hidden);
    probe.value = t.probe;
    about.textContent = t.about;
  }
  function applyStyle() { score.disabled = style.value === 'none'; }
  task.addEventListener('change', () => { applyTask(); onProbeChange(); });
  probe.addEventListener('input', onProbeChange);
  style.addEventListener('change', applyStyle);
  applyTask();
  applyStyle();

  return {
    form, config, start, stop,
    /** The form's values. */
    readConfig: () => ({
      task: task.value, style: style.value, score: score.value, cell: cell.value, hidden: Number(hidden.value),
      steps: steps.valueAsNumber, lr: lr.valueAsNumber, probe: probe.value, every: every.valueAsNumber,
    }),
    /** The probe's source tokens as the task's model reads them (words for en-ko, else characters). */
    probeTokens: () => (task.value === 'en-ko' ? probe.value.split(/\s+/).filter(Boolean) : Array.from(probe.value)),
    probeText: () => probe.value,
  };
}
