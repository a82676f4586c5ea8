// Compare: the current model beside every shipped model of its task on the same input, vanilla vs
// attention first (the vanilla one with its h_T strip), then each score function and decoder style;
// every translation runs in the engine Worker. A model that cannot be loaded or cannot translate the
// input is listed with the reason; and two inputs on the current model side by side. Interface:
// runCompare(), compareInputs(), clearCompare().
import { modelFigure, finalStateStrip, styleOrder, inputFigure } from '../views/figure-view.js';
import { h } from '../views/dom.js';
import { state } from './state.js';
import { $, codeText } from './page.js';
import { sourceInput } from './session.js';
import { auxSource } from './controls.js';
import { ensureModel, fillSelect } from './catalog.js';
import { translateInWorker } from './engine.js';

let seq = 0;   // bumped by every run and clear: a late answer of an older run is dropped

export function clearCompare() {
  seq++;
  $('compare-vanilla').replaceChildren();
  $('compare-scores').replaceChildren();
  $('compare-errors').replaceChildren();
  $('compare-inputs').replaceChildren();
  $('compare').dataset.state = 'idle';
}

let inputsSeq = 0;
/**
 * Two inputs on the selected model side by side: the watched input and the second field's (an
 * example of the model's other than the first, until the visitor types one), each translated in the
 * engine Worker.
 */
export async function compareInputs() {
  const entry = state.current;
  if (!entry?.model) return;
  const mine = ++inputsSeq;
  const { text } = auxSource();
  const field = $('compare-input');
  if (!field.value.trim() || field.dataset.auto === 'true') {
    field.value = entry.examples.find((x) => x !== text) ?? '';
    field.dataset.auto = 'true';
  }
  const other = field.value;
  const m = entry.model, vanilla = m.config.style === 'none';
  const out = $('compare-inputs');
  out.dataset.state = 'running';
  const figs = [];
  for (const [which, t] of [['a', text], ['b', other]]) {
    if (!t.trim()) continue;
    try {
      figs.push(inputFigure(t, await translateInWorker(entry, sourceInput(m, t), { ...entry.decode }, vanilla), vanilla, which));
    } catch (err) {
      figs.push(h('p', { class: 'error', dataset: { input: which }, text: `“${t}”: ${codeText(err)}` }));
    }
    if (mine !== inputsSeq || state.current !== entry) return;
  }
  out.replaceChildren(...figs);
  out.dataset.state = 'done';
}

export async function runCompare() {
  const entry = state.current;
  if (!entry?.model) return;
  const mine = ++seq;
  const { text } = auxSource();
  const task = entry.model.config.task ?? entry.task;
  const van = $('compare-vanilla'), sc = $('compare-scores'), errs = $('compare-errors');
  $('compare').dataset.state = 'running';
  const sibs = [...state.entries.values()].filter((e) => !e.user && e.task && e.task === task && e !== entry);
  const all = [entry, ...sibs];
  const settled = await Promise.allSettled(all.map((e) => ensureModel(e)));
  if (mine !== seq) return;
  fillSelect();
  const ok = [], failed = [];
  for (const [i, e] of all.entries()) {
    if (settled[i].status !== 'fulfilled') {
      failed.push([e, settled[i].reason]);
      continue;
    }
    const m = settled[i].value;
    try {
      ok.push({ e, m, r: await translateInWorker(e, sourceInput(m, text), { ...e.decode }, m.config.style === 'none') });
    } catch (err) {
      failed.push([e, err]);
    }
    if (mine !== seq) return;
  }
  errs.replaceChildren(...failed.map(([e, err]) => h('li', { text: `${e.title}: could not ${err?.code === 'BAD_INPUT' ? 'translate this input' : 'be loaded'} — ${codeText(err)}` })));
  const vanilla = ok.find((x) => x.m.config.style === 'none');
  const attn = ok.filter((x) => x.m.config.style !== 'none').sort((a, b) => (a.e === entry ? -1 : b.e === entry ? 1 : styleOrder(a.m.config) - styleOrder(b.m.config)));
  const best = attn.find((x) => x.e === entry) ?? attn.find((x) => x.m.config.style === 'luong' && x.m.config.score === 'dot') ?? attn[0];
  if (vanilla && best) {
    const hT = vanilla.r.finalState ?? null;
    const hTStrip = hT ? finalStateStrip(hT) : null;
    van.replaceChildren(
      modelFigure(vanilla.e, vanilla.m.config, vanilla.r, { vanilla: true, isCurrent: vanilla.e === entry, extra: hTStrip }),
      modelFigure(best.e, best.m.config, best.r, { isCurrent: best.e === entry }));
  } else {
    van.replaceChildren(h('p', { class: 'hint', text: `No vanilla and attention pair is available for the task “${task ?? 'unknown'}”${all.length === 1 ? ' (only the selected model)' : ''}. Pick a model whose task has a vanilla twin in the list (English → Korean) to see the pair.` }));
  }
  sc.replaceChildren(...(attn.length ? attn.map((x) => modelFigure(x.e, x.m.config, x.r, { isCurrent: x.e === entry }))
    : [h('p', { class: 'hint', text: 'No attention models for this task.' })]));
  await compareInputs();
  if (mine !== seq) return;
  $('compare').dataset.state = 'done';
}
