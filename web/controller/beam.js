// Beam search on the same input: the hypotheses of the current model, ranked by log p / length, each
// with its own alignment; the search runs in the engine Worker. Interface: runBeam(), clearBeam().
import { beamItem } from '../views/figure-view.js';
import { h } from '../views/dom.js';
import { state } from './state.js';
import { $, codeText } from './page.js';
import { sourceInput } from './session.js';
import { auxSource } from './controls.js';
import { translateInWorker } from './engine.js';
import { writeLink } from './link.js';

let seq = 0;   // bumped by every run and clear: a late answer of an older run is dropped

export function clearBeam() {
  seq++;
  $('beam-results').replaceChildren();
  $('beam').dataset.state = 'idle';
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
  translateInWorker(entry, sourceInput(m, text), prefix ? { beam, prefix: sourceInput(m, prefix) } : { beam }).then((r) => {
    if (mine !== seq) return;
    list.replaceChildren(...r.hypotheses.map((hyp, i) => beamItem(hyp, i, vanilla)));
    $('beam').dataset.state = 'done';
    writeLink();
  }, (e) => {
    if (mine !== seq) return;
    list.replaceChildren(h('li', { class: 'error', text: codeText(e) }));
    $('beam').dataset.state = 'done';
  });
}
