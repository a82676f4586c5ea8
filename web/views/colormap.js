// Colour maps for the demo's views: viridis (sequential, for attention weights and probabilities)
// and RdBu (diverging, for signed values such as hidden states and raw scores). Pure functions
// from numbers to [r, g, b] bytes or CSS strings; no DOM. Both maps are colour-blind safe.

// Viridis is the package's one table, shared with the CLI and the training panel: wasm/colormap.js
// says where its anchors come from and how close they stay to matplotlib's full table.
export { viridis, VIRIDIS_ANCHORS } from '../../wasm/colormap.js';

// ColorBrewer 2.0 "RdBu", 11 classes (Cynthia Brewer, Penn State), reversed so that negative values
// are blue and positive values are red; the middle (zero) is a light grey.
export const RDBU_ANCHORS = [
  '#053061', '#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7',
  '#fddbc7', '#f4a582', '#d6604d', '#b2182b', '#67001f',
].map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16) / 255));

const clamp01 = (x) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

function sample(anchors, t) {
  const x = clamp01(t) * (anchors.length - 1);
  const i = Math.min(anchors.length - 2, Math.floor(x));
  const f = x - i;
  return anchors[i].map((v, k) => Math.round(255 * (v + f * (anchors[i + 1][k] - v))));
}

/** Diverging RdBu for a signed value: v / maxAbs in [-1, 1] maps to blue ... grey ... red. */
export function diverging(v, maxAbs) {
  const m = maxAbs > 0 && Number.isFinite(maxAbs) ? maxAbs : 1;
  return sample(RDBU_ANCHORS, 0.5 + 0.5 * (Number.isFinite(v) ? v : 0) / m);
}

/** [r, g, b] -> "rgb(r, g, b)". */
export const css = (c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;

/** "#rrggbb" for an [r, g, b] triple (for SVG files and canvas). */
export const hex = (c) => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');

/** WCAG relative luminance of an sRGB byte triple, in [0, 1]. */
export function luminance(c) {
  const lin = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

/** Black or white text, whichever contrasts more with the background colour c. */
export function inkFor(c) {
  const L = luminance(c);
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? '#000000' : '#ffffff';
}

/** Largest |v| of an array (0 for an empty one); the symmetric range of a diverging map. */
export function maxAbs(values) {
  let m = 0;
  for (const v of values) if (Number.isFinite(v) && Math.abs(v) > m) m = Math.abs(v);
  return m;
}
