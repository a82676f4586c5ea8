// The one viridis colour map (wasm/colormap.js): its properties against rows of matplotlib's table,
// and that the CLI's terminal heatmap, the demo page's views and the training panel all draw with it
// (same function; the CLI's 24-bit cells are viridis of the very weights its --json prints), with no
// second table left anywhere in bin/, web/ or wasm/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { viridis, VIRIDIS_ANCHORS } from '../../wasm/colormap.js';
import * as views from '../../web/views/colormap.js';
import * as train from '../../web/train/colors.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/attnseq.js');
const FIXTURE = path.join(ROOT, 'tests/data/parity/gru_luong_general.safetensors');

// Rows of matplotlib's `_viridis_data` (lib/matplotlib/_cm_listed.py): its two ends, and rows between
// anchors (which are every 5th row), 243 being where interpolation strays furthest from the table.
const MPL_ROWS = {
  0: [0.267004, 0.004874, 0.329415], 4: [0.272594, 0.025563, 0.353093], 64: [0.229739, 0.322361, 0.545706],
  127: [0.128729, 0.563265, 0.551229], 128: [0.127568, 0.566949, 0.550556], 152: [0.132268, 0.655014, 0.519661],
  243: [0.876168, 0.891125, 0.095250], 244: [0.886271, 0.892374, 0.095374], 247: [0.916242, 0.896091, 0.100717],
  252: [0.964894, 0.902323, 0.123941], 255: [0.993248, 0.906157, 0.143936],
};
const bytes = (rgb) => rgb.map((v) => Math.round(255 * v));
// WCAG relative luminance, written here rather than imported so the check does not lean on the page.
const luminance = (c) => c.reduce((sum, v, k) => {
  const s = v / 255;
  return sum + [0.2126, 0.7152, 0.0722][k] * (s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4);
}, 0);

test('viridis: matplotlib\'s endpoints, within one byte of its table, clamped, luminance rising', () => {
  assert.deepEqual(viridis(0), [68, 1, 84]);
  assert.deepEqual(viridis(1), [253, 231, 37]);
  assert.deepEqual(VIRIDIS_ANCHORS[0], MPL_ROWS[0]);
  assert.deepEqual(VIRIDIS_ANCHORS.at(-1), MPL_ROWS[255]);
  for (const [row, rgb] of Object.entries(MPL_ROWS)) {
    const got = viridis(row / 255), want = bytes(rgb);
    assert.ok(got.every((v, k) => Math.abs(v - want[k]) <= 1), `row ${row}: ${got} vs matplotlib ${want}`);
  }
  for (const [t, same] of [[-3, 0], [7, 1], [NaN, 0], [Infinity, 0], [-Infinity, 0], [undefined, 0]])
    assert.deepEqual(viridis(t), viridis(same), `viridis(${t})`);
  let prev = -1;
  for (let i = 0; i <= 100; i++) {
    const L = luminance(viridis(i / 100));
    assert.ok(L > prev, `luminance rises at ${i / 100}`);
    prev = L;
  }
  // Finer than 1/100 the bytes' rounding can tie or dip a step (red falls while green rises), so at
  // 2001 points: every colour a hundredth further along is lighter, and every colour is bytes.
  const at = Array.from({ length: 2001 }, (_, i) => viridis(i / 2000));
  at.forEach((c, i) => {
    assert.ok(c.every((v) => Number.isInteger(v) && v >= 0 && v <= 255), `bytes at ${i / 2000}: ${c}`);
    if (i + 20 < at.length) assert.ok(luminance(at[i + 20]) > luminance(c), `lighter 0.01 after ${i / 2000}`);
  });
});

test('the page views and the training panel use the same viridis function', () => {
  assert.equal(views.viridis, viridis);
  assert.equal(views.VIRIDIS_ANCHORS, VIRIDIS_ANCHORS);
  assert.equal(train.viridisRGB, viridis);
  assert.equal(train.VIRIDIS_ANCHORS, VIRIDIS_ANCHORS);
  for (let i = 0; i <= 1000; i++) {
    const [r, g, b] = viridis(i / 1000);
    assert.equal(train.viridis(i / 1000), `rgb(${r}, ${g}, ${b})`);
  }
});

test('the CLI paints viridis of the weights it prints, and its legend ramp is viridis too', () => {
  const run = (...extra) => {
    const r = spawnSync(process.execPath, [BIN, 'translate', '-m', FIXTURE, '--max-length', '6', ...extra, 'w5 w6 w7 w8 w4'],
      { encoding: 'utf8', timeout: 30000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const json = JSON.parse(run('--json'));
  const attention = json.attention.flat(), { rows, cols } = json;
  const cells = [...run('--color').matchAll(/\x1b\[48;2;(\d+);(\d+);(\d+)m\x1b\[38;2;[\d;]+m (?:1\.0|\.\d\d) \x1b\[0m/g)];
  assert.equal(cells.length, rows * cols);
  const seen = new Set();
  cells.forEach(([, r, g, b], i) => {
    assert.deepEqual([+r, +g, +b], viridis(attention[i]), `cell ${i} (weight ${attention[i]})`);
    seen.add(`${r},${g},${b}`);
  });
  assert.ok(seen.size > 3, `the weights span several colours (${seen.size})`);
  const legend = run('--color').split('\n').find((l) => l.includes('weights: 0'));
  const ramp = [...legend.matchAll(/\x1b\[48;2;(\d+);(\d+);(\d+)m \x1b\[0m/g)].map((m) => m.slice(1).map(Number));
  assert.deepEqual(ramp, Array.from({ length: 20 }, (_, i) => viridis(i / 19)));
});

test('no other viridis table is left in bin/, web/ or wasm/', () => {
  // matplotlib's first row as fractions or bytes, and its last as bytes: any copy of the table has them.
  const marks = ['0.267004', '68, 1, 84', '68,1,84', '253, 231, 37', '253,231,37'];
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (/\.(m?js|html|css)$/.test(e.name)) files.push(rel);
    }
  };
  ['bin', 'web', 'wasm'].forEach(walk);
  assert.ok(files.includes('wasm/colormap.js') && files.includes('bin/attnseq.js') && files.length > 20, files.join(' '));
  const holders = files.filter((f) => marks.some((m) => readFileSync(path.join(ROOT, f), 'utf8').includes(m)));
  assert.deepEqual(holders, ['wasm/colormap.js']);
});
