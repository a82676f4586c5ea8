// Small multiples for the compare and beam sections: one labelled alignment matrix per model or per
// beam hypothesis (SVG from matrixFigure; a large one, such as a 300-character input, is a scrolling
// canvas window with readable cells instead: web/views/matrix-canvas.js), with its configuration,
// score formula and output; the vanilla model's figure shows the h_T column and the h_T strip instead
// of attention.
import { maxAbs } from './colormap.js';
import { matrixFigure } from './alignment.js';
import { stripLayout } from './vectors.js';
import { stepFormulas, argmax } from './inspect.js';
import { fmt } from './format.js';
import { renderFigure, renderStrip } from './render.js';
import { renderMatrixCanvas } from './matrix-canvas.js';
import { isLargeMatrix, MIN_CELL } from './viewport.js';
import { h, code, langOf } from './dom.js';

/** "luong · dot", "vanilla · no attention". */
export const styleName = (c) => (c.style === 'none' ? 'vanilla · no attention' : `${c.style} · ${c.score}`);

/** Sort key: luong dot, general, additive, then bahdanau, vanilla last. */
export const styleOrder = (c) => (c.style === 'none' ? 9 : c.style === 'bahdanau' ? 5 : 0) + ['dot', 'general', 'additive'].indexOf(c.score);

/** The encoder's final state as a highlighted strip: all a vanilla decoder knows about the input. */
export function finalStateStrip(hT) {
  return h('div', { class: 'strip-row final' }, h('span', { class: 'strip-label' }, h('var', {}, 'h', h('sub', { text: 'T' }))),
    renderStrip(stripLayout(hT, { max: maxAbs(hT) }), { kind: 'final', label: `h_T, ${hT.length} numbers: everything the vanilla decoder knows about the input` }));
}

/** A small multiple's matrix: SVG (every cell an element) while small, a canvas window when large. */
function matrixView(r, cell, vanilla, label) {
  if (isLargeMatrix(r.rows, r.cols + (vanilla ? 1 : 0))) {
    // It opens where the first output token looks (a reversal starts at the far end), or at h_T.
    const col = vanilla ? r.cols : r.rows ? argmax(r.attention.subarray(0, r.cols)) : 0;
    return renderMatrixCanvas(r, { cell, vanilla, label, show: { row: 0, col } });
  }
  // Figures with small cells keep their size and scroll sideways rather than shrink into stripes.
  return h('div', { class: 'scroll' }, renderFigure(matrixFigure(r, { cell, vanilla }), { label, cls: cell <= MIN_CELL ? 'matrix fixed' : 'matrix' }));
}

/** One model's translation as a figure. entry: { id, title }; result: a Translation. */
export function modelFigure(entry, config, result, { vanilla = false, isCurrent = false, extra = null } = {}) {
  const F = stepFormulas(config);
  return h('figure', { class: `multiple${isCurrent ? ' current' : ''}`, dataset: { model: entry.id, style: config.style, score: config.score } },
    h('figcaption', {},
      h('strong', { text: entry.title }), isCurrent ? h('span', { class: 'badge', text: 'selected' }) : null,
      h('span', { class: 'cfg', text: styleName(config) }),
      F.attention ? code(F.score) : code('S_0 = h_T, no attention')),
    matrixView(result, result.cols > 12 ? 14 : 24, vanilla, `${entry.title}: alignment of “${result.text}”`),
    h('p', { class: 'out' }, '→ ', h('span', { lang: langOf(result.text), text: result.text || '(empty)' })),
    extra);
}

/** One input's alignment by the selected model, captioned with the input (two inputs side by side). */
export function inputFigure(text, result, vanilla, which) {
  return h('figure', { class: 'multiple', dataset: { input: which } },
    h('figcaption', {}, h('strong', { lang: langOf(text), text: `“${text}”` })),
    matrixView(result, result.cols > 12 ? 14 : 24, vanilla, `alignment of “${text}” → “${result.text}”`),
    h('p', { class: 'out' }, '→ ', h('span', { lang: langOf(result.text), text: result.text || '(empty)' })));
}

/** One beam hypothesis (rank i, from 0) as a list item with its own alignment. */
export function beamItem(hyp, i, vanilla) {
  return h('li', { class: 'multiple hyp', dataset: { score: String(hyp.score), rank: i + 1 } },
    h('p', { class: 'hyp-head' }, h('span', { class: 'rank', text: `#${i + 1}` }), ' ',
      h('strong', { lang: langOf(hyp.text), class: 'hyp-text', text: hyp.text || '(empty)' })),
    h('p', { class: 'hint' }, `score ${fmt(hyp.score, 4)} = log p ${fmt(hyp.logProb, 3)} / ${hyp.rows}${hyp.finished ? '' : ' · unfinished (hit the length limit)'}`),
    matrixView(hyp, hyp.cols > 12 ? 14 : 22, vanilla, `hypothesis ${i + 1}: ${hyp.text}`));
}
