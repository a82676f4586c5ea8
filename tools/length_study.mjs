// The length study (Bahdanau et al. 2014, Figure 2, on the reverse task): exact match by source
// length for the attention model and the vanilla model of the same size, from `attnseq eval`.
// Writes models/length-study.md (table) and models/length-study.svg (plot).
//   node tools/length_study.mjs [--n 1200]   (needs build/native/attnseq and the two reverse models)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const n = process.argv.includes('--n') ? process.argv[process.argv.indexOf('--n') + 1] : '1200';
const run = (model) => JSON.parse(execFileSync('build/native/attnseq', ['eval', '--model', `models/${model}.safetensors`,
  '--task', 'reverse', '--min-len', '1', '--max-len', '60', '--n', n, '--seed', '20261130', '--json'], { encoding: 'utf8' }));
const att = run('reverse'), van = run('reverse-vanilla');

const rows = att.buckets.map((b, i) => ({ lo: b.lo, hi: b.hi, n: b.n, att: b.exact_match, van: van.buckets[i].exact_match }));
let md = `# Length study: reverse, attention vs vanilla\n\nExact match by source length on ${att.n} held-out sequences ` +
  `(seed 20261130), made by \`node tools/length_study.mjs --n ${n}\`. Both models: GRU, bidirectional encoder, ` +
  `hidden 128, same training (models/train.sh); only the decoder style differs (luong/dot vs none).\n\n` +
  `| source length | n | attention | vanilla |\n|---|---|---|---|\n`;
for (const r of rows) md += `| ${r.lo}-${r.hi} | ${r.n} | ${r.att.toFixed(3)} | ${r.van.toFixed(3)} |\n`;
writeFileSync('models/length-study.md', md);

// SVG plot: x = bucket midpoint, y = exact match.
const W = 560, H = 320, L = 56, R = 16, T = 24, B = 48;
const x = (v) => L + ((v - 0) / 60) * (W - L - R);
const y = (v) => T + (1 - v) * (H - T - B);
const line = (key) => rows.map((r, i) => `${i ? 'L' : 'M'}${x((r.lo + r.hi) / 2).toFixed(1)},${y(r[key]).toFixed(1)}`).join(' ');
const dots = (key, color) => rows.map((r) => `<circle cx="${x((r.lo + r.hi) / 2).toFixed(1)}" cy="${y(r[key]).toFixed(1)}" r="3.5" fill="${color}"/>`).join('');
let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`;
svg += `<rect width="${W}" height="${H}" fill="white"/>`;
for (let v = 0; v <= 1.0001; v += 0.25) svg += `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${L - 8}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(2)}</text>`;
for (let v = 0; v <= 60; v += 10) svg += `<text x="${x(v)}" y="${H - B + 18}" text-anchor="middle">${v}</text>`;
svg += `<text x="${(L + W - R) / 2}" y="${H - 10}" text-anchor="middle">source length</text>`;
svg += `<text transform="translate(14 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">exact match</text>`;
// Okabe-Ito colours (colour-blind safe): blue for attention, vermillion for vanilla.
svg += `<path d="${line('att')}" fill="none" stroke="#0072B2" stroke-width="2.5"/>${dots('att', '#0072B2')}`;
svg += `<path d="${line('van')}" fill="none" stroke="#D55E00" stroke-width="2.5" stroke-dasharray="6 4"/>${dots('van', '#D55E00')}`;
svg += `<text x="${W - R - 150}" y="${T + 14}" fill="#0072B2">— attention (luong, dot)</text>`;
svg += `<text x="${W - R - 150}" y="${T + 30}" fill="#D55E00">- - vanilla (no attention)</text></svg>\n`;
writeFileSync('models/length-study.svg', svg);
console.log(md);
