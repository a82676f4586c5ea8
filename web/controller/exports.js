// Exports of the watched decode's alignment: PNG (drawn on a canvas at twice the size), SVG, CSV and
// JSON (the package's own helpers), downloaded through blob: URLs under a name made from the model
// and the input. Interface: exportAs(kind), kind 'png' | 'svg' | 'csv' | 'json'.
import { alignmentToCSV, alignmentToJSON } from '../../wasm/attnseq.js';
import { matrixFigure, alignmentSVG } from '../views/alignment.js';
import { safeName } from '../views/format.js';
import { drawFigure } from '../views/render.js';
import { download } from '../views/dom.js';
import { state } from './state.js';
import { showError } from './page.js';
import { outputText, isVanilla } from './session.js';
import { grid } from './matrix.js';

function exportName(sess, ext) {
  return `attnseq-${safeName(sess.entry.id.replace(/^user:/, ''))}-${safeName(sess.text).slice(0, 30)}.${ext}`;
}

function figureOptions(sess) {
  return { cell: 34, font: 14, vanilla: isVanilla(sess), legend: true, title: [sess.entry.title, `${sess.text} → ${outputText(sess)}`] };
}

export function exportAs(kind) {
  const sess = state.sess;
  if (!sess || sess.steps.length === 0) return;
  // What the matrix shows: tokens, or a subword model's words.
  const g = grid();
  const a = { srcTokens: g.srcTokens, tgtTokens: g.tgtTokens, attention: g.attention, rows: g.rows, cols: g.cols };   // (no more: the package's exports take an alignment)
  if (kind === 'csv') return download(new Blob([alignmentToCSV(a)], { type: 'text/csv' }), exportName(sess, 'csv'));
  if (kind === 'json') return download(new Blob([alignmentToJSON(a)], { type: 'application/json' }), exportName(sess, 'json'));
  if (kind === 'svg') return download(new Blob([alignmentSVG(a, figureOptions(sess))], { type: 'image/svg+xml' }), exportName(sess, 'svg'));
  const fig = matrixFigure(a, figureOptions(sess));
  const canvas = document.createElement('canvas');
  canvas.width = fig.width * 2;
  canvas.height = fig.height * 2;
  drawFigure(canvas.getContext('2d'), fig, { scale: 2 });
  canvas.toBlob((blob) => (blob ? download(blob, exportName(sess, 'png')) : showError('PNG export failed')), 'image/png');
}
