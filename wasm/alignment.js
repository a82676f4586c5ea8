// Alignment exports: a translation's attention as CSV, JSON or Pharaoh links. Pure functions of a
// result ({ srcTokens, tgtTokens, attention, rows, cols }), no engine.

/** Alignment export helpers. */
export function alignmentToCSV(r) {
  // RFC 4180: a field holding a quote, a comma, CR or LF is quoted (quotes doubled).
  const esc = (s) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [['', ...r.srcTokens].map(esc).join(',')];
  for (let k = 0; k < r.rows; k++) {
    const row = [esc(r.tgtTokens[k])];
    for (let t = 0; t < r.cols; t++) row.push(String(r.attention[k * r.cols + t]));
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}
export function alignmentToJSON(r) {
  const rows = [];
  for (let k = 0; k < r.rows; k++) rows.push(Array.from(r.attention.subarray(k * r.cols, (k + 1) * r.cols)));
  return JSON.stringify({ srcTokens: r.srcTokens, tgtTokens: r.tgtTokens, attention: rows });
}
/**
 * Pharaoh format: "i-j" for each target token j, its most-attended source position i. A row with
 * no positive weight links nothing, so a vanilla model (style 'none': all-zero rows) gives ''.
 */
export function alignmentToPharaoh(r) {
  const out = [];
  for (let k = 0; k < r.rows; k++) {
    let best = -1, bestW = 0;
    for (let t = 0; t < r.cols; t++) {
      const w = r.attention[k * r.cols + t];
      if (w > bestW) best = t, bestW = w;
    }
    if (best >= 0) out.push(`${best}-${k}`);
  }
  return out.join(' ');
}
