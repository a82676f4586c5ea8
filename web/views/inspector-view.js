// The step inspector's DOM: the seed's three stages for one StepResult, from the real numbers.
// Query strip; keys = values (one strip per encoder state h_i) beside ① the scores (signed bars) and
// ② the softmax weights (bars); ③ the context strip with JavaScript re-computations; the next-token
// probabilities. Every number is also in a data-value attribute (the browser test reads them).
// A long source (over LONG_SOURCE tokens) shows only the rows in view of its keys table.
import { maxAbs } from './colormap.js';
import { showToken } from './alignment.js';
import { stripLayout, barsLayout, matrixRows } from './vectors.js';
import { stepFormulas, checkStep, argmax, formatDiff } from './inspect.js';
import { fmt, fmtP } from './format.js';
import { renderStrip, renderStripCanvas, renderBar } from './render.js';
import { h, code } from './dom.js';
import { virtualBody } from './virtual-rows.js';
import { LONG_SOURCE } from './viewport.js';

export const INSPECTOR_HINT = 'Run a step to see what the decoder computed: its query, the scores against every encoder state, ' +
  'the softmax weights, the context vector and its next-token probabilities.';

// canvas: one element per strip instead of one per number (a long source's inspector, redrawn often).
const strip = (values, max, kind, label, canvas = false) => (canvas ? renderStripCanvas : renderStrip)(stripLayout(values, { max }), { kind, label });


// A long source's key strips, made once per encoding: the keys do not change from step to step.
const keyStrips = new WeakMap();   // memory -> Map(i -> <svg>)
function cachedKey(mem, i, make) {
  let m = keyStrips.get(mem);
  if (!m) keyStrips.set(mem, (m = new Map()));
  if (!m.has(i)) m.set(i, make(i));
  return m.get(i);
}
const range = (m) => h('span', { class: 'range', text: `±${fmt(m, 2)}` });

function stage(title, formula, explain, ...content) {
  return h('div', { class: 'stage' },
    h('h3', {}, title, formula ? ' ' : null, formula ? code(formula) : null),
    explain ? h('p', { class: 'explain', text: explain }) : null, content);
}

/**
 * Nodes for step k. r: the StepResult (r.overridden when a what-if set its weights); memory: the
 * encoder's { data, rows, cols, finalState }; config: the model's; onLook(k, i): the ◎ buttons' action.
 */
export function inspectorNodes({ step: r, index: k, memory: mem, config: cfg, srcTokens, onLook }) {
  const F = stepFormulas(cfg);
  const parts = [];
  const long = srcTokens.length > LONG_SOURCE;
  const tag = r.forced ? ' (forced by the prefix)' : r.overridden ? ' (attention moved by you)' : '';
  parts.push(h('p', { class: 'step-head' }, 'Produced “', h('strong', { text: showToken(r.text) }), `”, p = ${fmtP(Math.exp(r.logProb))}${tag}.`));

  const qMax = maxAbs(r.query);
  parts.push(stage(F.attention ? 'Query' : 'Decoder state', F.attention ? F.query : 'S_k',
    cfg.style === 'bahdanau' ? 'The decoder state before this step: what the decoder is looking for.'
      : F.attention ? 'The decoder state after reading the previous token: what it is looking for.'
        : 'The vanilla decoder\'s state. It started as S_0 = h_T and has never looked at the source since.',
    h('div', { class: 'strip-row' }, strip(r.query, qMax, 'query', `${F.attention ? 'query' : 'decoder state'}, ${r.query.length} numbers`, long), range(qMax)),
    cfg.style !== 'bahdanau' ? h('p', { class: 'explain' }, F.attention ? 'Computed first: ' : 'Each step: ', code(F.state)) : null));

  if (!F.attention) {
    const fMax = maxAbs(mem.finalState);
    parts.push(stage('All the decoder got from the source', 'S_0 = h_T',
      'The encoder\'s final state: the whole input squeezed into one vector. Every output token is decoded from it; ' +
      'there are no keys, scores, weights or context.',
      h('div', { class: 'strip-row final' }, strip(mem.finalState, fMax, 'final', `h_T, ${mem.finalState.length} numbers`), range(fMax))));
  } else {
    const hs = matrixRows(mem.data, mem.rows, mem.cols);
    const hMax = maxAbs(mem.data);
    const scoreBars = barsLayout(r.scores, { signed: true });
    const weightBars = barsLayout(r.attention, { max: 1 });
    const top = argmax(r.attention);
    const keyStrip = (i) => strip(hs[i], hMax, 'key', `h_${i + 1}, ${mem.cols} numbers`, long);
    const row = (tok, i) => h('tr', { class: i === top ? 'top' : null, dataset: { i } },
      h('th', { scope: 'row', text: showToken(tok) }),
      h('td', { class: 'kv-strip' }, long ? cachedKey(mem, i, keyStrip) : keyStrip(i)),
      h('td', { class: 'num' }, renderBar(scoreBars[i], { signed: true }),
        h('span', { class: 'val', dataset: { kind: 'score', value: String(r.scores[i]), i }, text: fmt(r.scores[i], 2) })),
      h('td', { class: 'num' }, renderBar(weightBars[i]),
        h('span', { class: 'val', dataset: { kind: 'weight', value: String(r.attention[i]), i }, text: fmtP(r.attention[i]) })),
      h('td', {}, h('button', {
        type: 'button', class: 'look', text: '◎', title: `What if step ${k + 1} looked only at “${tok}”?`,
        'aria-label': `What if step ${k + 1} looked only at ${tok}? Re-decode from there`, onclick: () => onLook(k, i),
      })));
    // A long source's rows are a scrolling window that opens at the heaviest token (web/views/virtual-rows.js).
    const box = h('div', { class: long ? 'scroll kv-window' : 'scroll' });
    box.append(h('table', { class: 'kv' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: 'source' }),
        h('th', { scope: 'col' }, code('K_i = V_i = h_i')),
        h('th', { scope: 'col' }, '① ', code('score_i')),
        h('th', { scope: 'col' }, '② ', code('w_{ki}')),
        h('th', { scope: 'col', title: 'what if it looked only here?' }, h('span', { class: 'sr-only', text: 'what if' }), h('span', { 'aria-hidden': 'true', text: '◎' })))),
      long ? virtualBody(box, srcTokens.length, (i) => row(srcTokens[i], i), { focus: top, colspan: 5 }) : h('tbody', {}, srcTokens.map(row))));
    parts.push(stage('Keys and values', F.keys,
      `One encoder state per source token (${mem.rows} × ${mem.cols}); keys and values are the same vectors. ` +
      'Blue is negative, red positive. Press ◎ to make this step look only at that token and re-decode from there.' +
      (long ? ` The ${srcTokens.length} rows scroll; they open at the heaviest weight.` : ''),
      box));
    parts.push(h('div', { class: 'stage formulas' },
      h('p', {}, '① score: ', code(F.score)), h('p', {}, '② weights: ', code(F.weights)),
      r.overridden ? h('p', { class: 'warn', text: 'This step\'s weights were set by you (what-if), not by the softmax.' }) : null));
    const checks = checkStep(r, mem, cfg, r.overridden);
    parts.push(stage('③ Context', F.context, 'The weighted average of the values: what the decoder reads from the source at this step.',
      h('div', { class: 'strip-row' }, strip(r.context, hMax, 'context', `context vector, ${r.context.length} numbers`, long), range(hMax)),
      h('ul', { class: 'checks' }, checks.map((c) => h('li', { class: c.ok ? 'ok' : 'bad' },
        `${c.ok ? '✓' : '✗'} recomputed in JavaScript: `, code(c.what), ` (max |Δ| ${formatDiff(c.diff)})`)))));
  }

  const pMax = r.topk.length ? r.topk[0].p : 1;
  const pBars = barsLayout(r.topk.map((t) => t.p), { max: Math.max(pMax, 1e-9) });
  parts.push(stage('Next token', F.output, null,
    cfg.style === 'bahdanau' ? h('p', { class: 'explain' }, 'The state moves on with the context: ', code(F.state)) : null,
    h('ol', { class: 'topk' }, r.topk.map((t, i) => h('li', { class: t.token === r.token ? 'chosen' : null },
      h('span', { class: 'tok', text: showToken(t.text) }), renderBar(pBars[i]),
      h('span', { class: 'val', dataset: { kind: 'topk', token: String(t.token), value: String(t.p) }, text: fmtP(t.p) }))))));
  return parts;
}
