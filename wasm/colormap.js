// The one viridis colour map of the package: the CLI's terminal heatmap (bin/attnseq.js), the demo
// page's views (web/views/colormap.js) and the training panel (web/train/colors.js) all draw with
// viridis() below. Pure data and arithmetic, no DOM and no engine, so it loads in Node and in a page.
// Shipped in the npm package next to attnseq.js (package.json "files") so the installed CLI finds it.

// Viridis (van der Walt & Smith, 2015; CC0), sampled from matplotlib's 256-row sRGB table
// `_viridis_data` in lib/matplotlib/_cm_listed.py at every 5th row, 0, 5, ..., 255: 52 anchors evenly
// spaced at t = k / 51. Linear interpolation between them in sRGB stays within 0.62/255 per channel
// of all 256 rows of the full table (largest at row 243), so a rounded byte is never more than 1 off
// matplotlib's own; 16 anchors (every 17th row) would be 6.6/255 off near the yellow end.
export const VIRIDIS_ANCHORS = Object.freeze([
  [0.267004, 0.004874, 0.329415], // 0
  [0.273809, 0.031497, 0.358853], // 5
  [0.278791, 0.062145, 0.386592], // 10
  [0.281924, 0.089666, 0.412415], // 15
  [0.283197, 0.115680, 0.436115], // 20
  [0.282623, 0.140926, 0.457517], // 25
  [0.280255, 0.165693, 0.476498], // 30
  [0.276194, 0.190074, 0.493001], // 35
  [0.270595, 0.214069, 0.507052], // 40
  [0.263663, 0.237631, 0.518762], // 45
  [0.255645, 0.260703, 0.528312], // 50
  [0.246811, 0.283237, 0.535941], // 55
  [0.237441, 0.305202, 0.541921], // 60
  [0.227802, 0.326594, 0.546532], // 65
  [0.218130, 0.347432, 0.550038], // 70
  [0.208623, 0.367752, 0.552675], // 75
  [0.199430, 0.387607, 0.554642], // 80
  [0.190631, 0.407061, 0.556089], // 85
  [0.182256, 0.426184, 0.557120], // 90
  [0.174274, 0.445044, 0.557792], // 95
  [0.166617, 0.463708, 0.558119], // 100
  [0.159194, 0.482237, 0.558073], // 105
  [0.151918, 0.500685, 0.557587], // 110
  [0.144759, 0.519093, 0.556572], // 115
  [0.137770, 0.537492, 0.554906], // 120
  [0.131172, 0.555899, 0.552459], // 125
  [0.125394, 0.574318, 0.549086], // 130
  [0.121148, 0.592739, 0.544641], // 135
  [0.119423, 0.611141, 0.538982], // 140
  [0.121380, 0.629492, 0.531973], // 145
  [0.128087, 0.647749, 0.523491], // 150
  [0.140210, 0.665859, 0.513427], // 155
  [0.157851, 0.683765, 0.501686], // 160
  [0.180653, 0.701402, 0.488189], // 165
  [0.208030, 0.718701, 0.472873], // 170
  [0.239374, 0.735588, 0.455688], // 175
  [0.274149, 0.751988, 0.436601], // 180
  [0.311925, 0.767822, 0.415586], // 185
  [0.352360, 0.783011, 0.392636], // 190
  [0.395174, 0.797475, 0.367757], // 195
  [0.440137, 0.811138, 0.340967], // 200
  [0.487026, 0.823929, 0.312321], // 205
  [0.535621, 0.835785, 0.281908], // 210
  [0.585678, 0.846661, 0.249897], // 215
  [0.636902, 0.856542, 0.216620], // 220
  [0.688944, 0.865448, 0.182725], // 225
  [0.741388, 0.873449, 0.149561], // 230
  [0.793760, 0.880678, 0.120005], // 235
  [0.845561, 0.887322, 0.099702], // 240
  [0.896320, 0.893616, 0.096335], // 245
  [0.945636, 0.899815, 0.112838], // 250
  [0.993248, 0.906157, 0.143936], // 255
].map((row) => Object.freeze(row)));

/** Viridis at t in [0, 1] (clamped; NaN and other non-finite values give 0) as [r, g, b] bytes. */
export function viridis(t) {
  const A = VIRIDIS_ANCHORS;
  const x = (Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0) * (A.length - 1);
  const i = Math.min(A.length - 2, Math.floor(x));
  const f = x - i;
  return [0, 1, 2].map((k) => Math.round(255 * (A[i][k] + f * (A[i + 1][k] - A[i][k]))));
}
