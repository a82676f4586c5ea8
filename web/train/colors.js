// Colour maps for the train and study views. viridis is perceptually uniform, readable in greyscale
// and safe for the common colour-vision deficiencies, so a weight reads the same for everyone.
// Pure functions: no DOM, tested in Node (tests/js/train-study-views.test.mjs).

// viridis comes from the package's one table (wasm/colormap.js), shared with the demo's views and the
// CLI; this file only adds the CSS string and the ink choice the train views use.
import { viridis as viridisRGB, VIRIDIS_ANCHORS } from '../../wasm/colormap.js';

/** viridis(x) for x in [0, 1] (clamped; NaN counts as 0) -> [r, g, b] bytes. */
export { viridisRGB, VIRIDIS_ANCHORS };

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
