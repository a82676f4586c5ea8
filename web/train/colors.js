// Colour maps for the train and study views. viridis is perceptually uniform, readable in greyscale
// and safe for the common colour-vision deficiencies, so a weight reads the same for everyone.
// Pure functions: no DOM, tested in Node (tests/js/train-study-views.test.mjs).

// 33 anchors of matplotlib's viridis (van der Walt & Smith, 2015): rows 0, 8, 16, ..., 248 and 255
// of `_viridis_data` in matplotlib/lib/matplotlib/_cm_listed.py (256 rows of sRGB in [0, 1]), each
// stored as [t = row / 255, r, g, b]. Between anchors we interpolate linearly in sRGB; the largest
// error against the full 256-row table is 1.7/255 on one channel (the Node test checks sample rows).
export const VIRIDIS_ANCHORS = [
  [0 / 255, 0.267004, 0.004874, 0.329415],
  [8 / 255, 0.277018, 0.050344, 0.375715],
  [16 / 255, 0.282327, 0.094955, 0.417331],
  [24 / 255, 0.282884, 0.135920, 0.453427],
  [32 / 255, 0.278826, 0.175490, 0.483397],
  [40 / 255, 0.270595, 0.214069, 0.507052],
  [48 / 255, 0.258965, 0.251537, 0.524736],
  [56 / 255, 0.244972, 0.287675, 0.537260],
  [64 / 255, 0.229739, 0.322361, 0.545706],
  [72 / 255, 0.214298, 0.355619, 0.551184],
  [80 / 255, 0.199430, 0.387607, 0.554642],
  [88 / 255, 0.185556, 0.418570, 0.556753],
  [96 / 255, 0.172719, 0.448791, 0.557885],
  [104 / 255, 0.160665, 0.478540, 0.558115],
  [112 / 255, 0.149039, 0.508051, 0.557250],
  [120 / 255, 0.137770, 0.537492, 0.554906],
  [128 / 255, 0.127568, 0.566949, 0.550556],
  [136 / 255, 0.120565, 0.596422, 0.543611],
  [144 / 255, 0.120638, 0.625828, 0.533488],
  [152 / 255, 0.132268, 0.655014, 0.519661],
  [160 / 255, 0.157851, 0.683765, 0.501686],
  [168 / 255, 0.196571, 0.711827, 0.479221],
  [176 / 255, 0.246070, 0.738910, 0.452024],
  [184 / 255, 0.304148, 0.764704, 0.419943],
  [192 / 255, 0.369214, 0.788888, 0.382914],
  [200 / 255, 0.440137, 0.811138, 0.340967],
  [208 / 255, 0.515992, 0.831158, 0.294279],
  [216 / 255, 0.595839, 0.848717, 0.243329],
  [224 / 255, 0.678489, 0.863742, 0.189503],
  [232 / 255, 0.762373, 0.876424, 0.137064],
  [240 / 255, 0.845561, 0.887322, 0.099702],
  [248 / 255, 0.926106, 0.897330, 0.104071],
  [255 / 255, 0.993248, 0.906157, 0.143936],
];

/** viridis(x) for x in [0, 1] (clamped; NaN counts as 0) -> [r, g, b] bytes. */
export function viridisRGB(x) {
  const v = Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
  const A = VIRIDIS_ANCHORS;
  let i = 0;
  while (i < A.length - 2 && v > A[i + 1][0]) i++;
  const f = (v - A[i][0]) / (A[i + 1][0] - A[i][0]);
  return [1, 2, 3].map((k) => Math.round(255 * (A[i][k] + f * (A[i + 1][k] - A[i][k]))));
}

/** The same as a CSS colour string (usable in an SVG fill attribute, which CSP allows). */
export function viridis(x) {
  const [r, g, b] = viridisRGB(x);
  return `rgb(${r}, ${g}, ${b})`;
}

/** Text drawn on a viridis cell: white on the dark purple/blue end, black on the light end. */
export function inkOn(x) {
  const [r, g, b] = viridisRGB(x);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128 ? '#fff' : '#000';
}
