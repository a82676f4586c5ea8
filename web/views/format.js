// Small pure helpers for text: number formatting for labels, XML escaping for SVG files, and safe
// download file names. Shared by the views and the page; no DOM.

/** A compact label for a number: 3 significant decimals near 1, fewer for large magnitudes. */
export function fmt(v, digits = 3) {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toExponential(1);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a !== 0 && a < 10 ** -digits) return v.toExponential(0);
  return v.toFixed(digits);
}

// The log scale of the weights: 10^-LOG_DECADES (and below) at the dark end, 1 at the bright end.
export const LOG_DECADES = 6;

/**
 * A weight as the matrix shows it. 'linear': its colour at w on the 0 → 1 ramp, two decimals. 'log':
 * its colour at log10(w) on the 10^-6 → 1 ramp, and a text that tells 0.0003 from 0.00002 and
 * 0.99998 from 1: "0.42", "3e-4", "1−2e-5", "1", "0".
 */
export function weightView(w, scale = 'linear') {
  if (scale !== 'log') return { level: w, text: w.toFixed(2) };
  const level = w > 0 ? Math.max(0, 1 + Math.log10(w) / LOG_DECADES) : 0;
  const gap = 1 - w;
  const text = w <= 0 ? '0' : w < 0.01 ? w.toExponential(0) : gap <= 0 ? '1' : gap < 0.005 ? `1−${gap.toExponential(0)}` : w.toFixed(2);
  return { level, text };
}

/**
 * A raw score (before the softmax) as the matrix shows it: its text ("1.3e+3", "8.8", "-0.42") and its
 * colour on its row's range, dark at the lowest and bright at the highest, so that scores whose
 * weights all round to 0 (the softmax of scores hundreds apart) still differ.
 */
export function scoreView(scores, t) {
  let max = -Infinity, min = Infinity;
  for (const s of scores) {
    if (s > max) max = s;
    if (s < min) min = s;
  }
  return { level: max > min ? (scores[t] - min) / (max - min) : 1, text: fmt(scores[t], 2) };
}

/** A probability or weight for a label: "0.998", "<0.001", "1.000". */
export function fmtP(p) {
  if (!Number.isFinite(p)) return String(p);
  if (p > 0 && p < 0.001) return '<0.001';
  return p.toFixed(3);
}

/** Escapes the five XML special characters (tokens can contain any of them). */
export function escapeXML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);
}

/** A file name from free text: keeps letters, digits, '-', '_' and '.', at most 60 characters. */
export function safeName(s) {
  const out = String(s).normalize('NFKC').replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return out || 'attnseq';
}

/** How the target tokens read as text (char models join without spaces). */
export function joinTokens(tokens, tokenizer) {
  return tokens.join(tokenizer === 'char' ? '' : ' ');
}
