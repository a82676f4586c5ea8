// Beam search on the same input: the hypotheses of the current model, ranked by log p / length, each
// with its own alignment, and how the search unfolded step by step (a model's trace: not an
// ensemble's); the search runs in the engine Worker. Interface: runBeam(), clearBeam(), setupBeam().
import { beamItem } from '../views/figure-view.js';
import { beamTreeLayout, renderBeamTree, pathKeys, endOf, columnsThatFit } from '../views/beam-tree.js';
import { fmt } from '../views/format.js';
import { h } from '../views/dom.js';
import { state } from './state.js';
import { $, codeText } from './page.js';
import { sourceInput } from './session.js';
import { auxSource } from './controls.js';
import { translateInWorker } from './engine.js';
import { writeLink } from './link.js';

let seq = 0;   // bumped by every run and clear: a late answer of an older run is dropped
let unfold = null;   // { trace, best, textOf, eos } of the last search, for the step slider

export function clearBeam() {
  seq++;
  $('beam-results').replaceChildren();
  $('beam').dataset.state = 'idle';
  unfold = null;
  $('beam-unfold').hidden = true;
}

/** The unfolding's step controls: the slider, and ◀ ▶ (the slider takes the arrow keys itself). */
export function setupBeam() {
  const slider = $('unfold-step');
  slider.addEventListener('input', drawUnfold);
  const move = (d) => () => {
    slider.value = String(Math.min(Number(slider.max), Math.max(1, Number(slider.value) + d)));
    drawUnfold();
  };
  $('unfold-prev').addEventListener('click', move(-1));
  $('unfold-next').addEventListener('click', move(1));
}

// Steps 1..k of the trace, as many columns as the panel's width holds (at least two).
function drawUnfold() {
  if (!unfold) return;
  const { trace, best, textOf, eos } = unfold;
  const k = Number($('unfold-step').value);
  const box = $('unfold-tree');
  const layout = beamTreeLayout(trace, k - 1, { best, textOf, window: columnsThatFit(box.clientWidth), eos });
  const nodes = trace[k - 1];
  const live = nodes.filter((n) => !n.ended).length, ended = nodes.length - live;
  box.replaceChildren(renderBeamTree(layout, `beam search, steps ${layout.first + 1} to ${k}`));
  const top = nodes[0];
  $('unfold-at').textContent = `Step ${k} of ${trace.length}: ${live} alive, ${ended} ended here. ` +
    `Best at this step: ${textOf(top.token)} (${k === 1 ? 'the first token' : `extending #${top.parent + 1} of step ${k - 1}`}), log p ${fmt(top.logProb, 3)}`;
  $('unfold-prev').disabled = k <= 1;
  $('unfold-next').disabled = k >= trace.length;
}

export function runBeam() {
  const entry = state.current;
  if (!entry?.model) return;
  const mine = ++seq;
  const list = $('beam-results');
  const beam = Math.min(16, Math.max(1, Math.round(Number($('beam-size').value)) || 1));
  $('beam-size').value = String(beam);
  const { text, prefix } = auxSource();
  const m = entry.model;
  const vanilla = m.config.style === 'none';
  $('beam').dataset.state = 'running';
  const trace = beam >= 2 && !(entry.files?.length > 1);   // an ensemble's beam is not recorded
  const options = { ...entry.decode, beam, ...(prefix ? { prefix: sourceInput(m, prefix) } : {}), ...(trace ? { trace } : {}) };
  translateInWorker(entry, sourceInput(m, text), options).then((r) => {
    if (mine !== seq) return;
    list.replaceChildren(...r.hypotheses.map((hyp, i) => beamItem(hyp, i, vanilla)));
    showUnfold(r, m);
    $('beam').dataset.state = 'done';
    writeLink();
  }, (e) => {
    if (mine !== seq) return;
    unfold = null;
    $('beam-unfold').hidden = true;
    list.replaceChildren(h('li', { class: 'error', text: codeText(e) }));
    $('beam').dataset.state = 'done';
  });
}

// The search's trace, opened at step 1 for the reader to step through.
function showUnfold(r, m) {
  const trace = r.beamTrace;
  $('beam-unfold').hidden = !trace?.length;
  if (!trace?.length) {
    unfold = null;
    return;
  }
  const top = r.hypotheses[0], end = top && endOf(trace, top.tokens, top.logProb);
  const textOf = (id) => (id === m.config.eos ? '</s>' : (m.tgtVocab[id] ?? String(id)).replace(/\u2581/g, '\u2423'));
  unfold = { trace, best: end ? pathKeys(trace, ...end) : new Set(), textOf, eos: m.config.eos };
  const slider = $('unfold-step');
  slider.max = String(trace.length);
  slider.value = '1';
  drawUnfold();
}
