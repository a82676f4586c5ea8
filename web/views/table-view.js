// The live alignment matrix as an HTML table (accessible, and readable as numbers): a header row of
// source tokens and one row per decoder step, each cell coloured by its weight (viridis) and carrying
// data-weight / data-row / data-col. The page appends rows as the engine computes them.
import { viridis, css, inkFor } from './colormap.js';
import { showToken } from './alignment.js';
import { fmt, weightView, scoreView } from './format.js';
import { h } from './dom.js';

/**
 * The header row: a corner cell, one focusable <th> per source token (or word: noun 'word'), plus
 * "h_T" for a vanilla model.
 */
export function tableHead(srcTokens, vanilla, noun = 'token', groups = null) {
  const corner = h('th', { scope: 'col', class: 'corner' }, h('span', { class: 'sr-only', text: `Output ${noun}` }), h('span', { 'aria-hidden': 'true', text: 'out ↓ in →' }));
  const row = h('tr', {}, corner, srcTokens.map((t, i) => h('th', {
    scope: 'col', class: 'src', tabindex: '0', text: showToken(t), dataset: { col: i }, 'aria-label': `Source ${noun} ${i + 1}: ${t}`,
  })));
  if (vanilla) row.append(h('th', { scope: 'col', class: 'src final', title: 'The encoder\'s final state: all the vanilla decoder ever sees' }, 'h', h('sub', { text: 'T' })));
  if (!groups) return h('thead', {}, row);
  // Jamo read from Hangul syllables: each syllable above its letters (the row the columns are in is the last).
  const top = h('tr', { class: 'groups' }, h('td', { class: 'corner' }), groups.map((g) => h(g.text ? 'th' : 'td', {
    colspan: String(g.count), class: g.text ? 'syllable' : '', ...(g.text ? { scope: 'colgroup', title: `the syllable ${g.text}, read as its ${g.count} letters` } : {}), text: g.text,
  })));
  if (vanilla) top.append(h('td', {}));
  return h('thead', {}, top, row);
}

/**
 * One decoder step as a row (or a target word's steps: noun 'word'). r: { text, attention, forced,
 * overridden } (a StepResult, plus r.overridden for a what-if row); k: its row; onSelect(k): the row
 * header button's action (inspect this step, or the word's last).
 */
export function tableRow(r, k, srcTokens, vanilla, onSelect, noun = 'step', scale = 'linear') {
  const flags = [r.forced && 'forced by the prefix', r.overridden && 'attention moved by you'].filter(Boolean);
  const btn = h('button', {
    type: 'button', class: 'row-btn', dataset: { row: k },
    'aria-label': `Inspect ${noun} ${k + 1}: ${r.text}${flags.length ? ` (${flags.join(', ')})` : ''}`,
    onclick: () => onSelect(k),
  }, showToken(r.text),
  r.forced ? h('span', { class: 'mark', 'aria-hidden': 'true', title: 'forced by the prefix', text: '⇢' }) : null,
  r.overridden ? h('span', { class: 'mark', 'aria-hidden': 'true', title: 'attention moved by you', text: '✎' }) : null);
  const tr = h('tr', { class: ['fresh', r.forced && 'forced', r.overridden && 'edited'].filter(Boolean).join(' '), dataset: { row: k } },
    h('th', { scope: 'row' }, btn));
  for (let t = 0; t < r.attention.length; t++) {
    const w = r.attention[t];
    const td = h('td', { dataset: { weight: String(w), row: k, col: t } });
    if (vanilla) {
      td.className = 'blind';
      td.setAttribute('aria-label', `${r.text} ← ${srcTokens[t]}: not visible to the vanilla decoder`);
    } else {
      const v = scale === 'scores' ? scoreView(r.scores, t) : weightView(w, scale);
      const c = viridis(v.level);
      td.textContent = v.text;
      td.style.backgroundColor = css(c);   // CSSOM, not a style attribute: allowed by style-src 'self'
      td.style.color = inkFor(c);
      td.setAttribute('aria-label', `${r.text} ← ${srcTokens[t]}: weight ${fmt(w, 4)}`);
    }
    tr.append(td);
  }
  if (vanilla) tr.append(h('td', { class: 'final', 'aria-label': `${r.text}: decoded from h_T alone` }, 'h', h('sub', { text: 'T' })));
  return tr;
}
