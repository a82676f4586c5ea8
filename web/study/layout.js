// Pure layout for the length study chart: exact-match accuracy (0..100 %) against source length,
// one polyline per model. Numbers in, geometry out; the SVG renderer is in panel.js.
import { niceTicks } from '../train/layout.js';

export const CHART_MARGIN = { left: 44, right: 12, top: 12, bottom: 36 };

/**
 * series: [{ key, label, points: [{ length, accuracy (0..1) }] }] (points may be partial while the
 * study runs; non-finite accuracies are skipped). opts.lengths fixes the x domain (default: the
 * points' own range). Returns { width, height, plot, xTicks, yTicks, series: [{ key, label, path,
 * points: [{ length, accuracy, cx, cy }] }] }.
 */
export function accuracyChartLayout(series, w, h, opts = {}) {
  const m = opts.margin ?? CHART_MARGIN;
  const plot = { x: m.left, y: m.top, w: Math.max(1, w - m.left - m.right), h: Math.max(1, h - m.top - m.bottom) };
  const all = [];
  for (const s of series ?? []) for (const p of s.points ?? []) if (Number.isFinite(p.length)) all.push(p.length);
  const xs = opts.lengths?.length ? opts.lengths : all;
  let x0 = xs.length ? Math.min(...xs) : 0, x1 = xs.length ? Math.max(...xs) : 1;
  if (x1 <= x0) { x0 -= 1; x1 += 1; }
  const X = (L) => Math.round((plot.x + ((L - x0) / (x1 - x0)) * plot.w) * 100) / 100;
  const Y = (a) => Math.round((plot.y + plot.h - Math.min(1, Math.max(0, a)) * plot.h) * 100) / 100;
  const xTickValues = opts.lengths?.length && opts.lengths.length <= 12 ? opts.lengths : niceTicks(x0, x1, Math.max(2, Math.floor(plot.w / 50)));
  return {
    width: w, height: h, plot,
    xTicks: xTickValues.filter((v) => v >= x0 && v <= x1).map((v) => ({ value: v, x: X(v), label: String(v) })),
    yTicks: [0, 0.25, 0.5, 0.75, 1].map((v) => ({ value: v, y: Y(v), label: `${v * 100}%` })),
    series: (series ?? []).map((s) => {
      const pts = (s.points ?? []).filter((p) => Number.isFinite(p.length) && Number.isFinite(p.accuracy))
        .slice().sort((a, b) => a.length - b.length)
        .map((p) => ({ ...p, cx: X(p.length), cy: Y(p.accuracy) }));
      return { key: s.key, label: s.label, points: pts, path: pts.map((p, i) => `${i ? 'L' : 'M'}${p.cx},${p.cy}`).join('') };
    }),
  };
}
