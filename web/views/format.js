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
