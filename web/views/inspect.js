// The step inspector's pure side: the seed's three stages written out for a model's configuration
// (query, score, weights, context, output), and independent JavaScript recomputations that check a
// StepResult against the encoder memory (softmax(scores) = weights, sum_i w_i h_i = context, and for
// the dot score <Q, h_i> = scores). Formulas use "_k" / "_{k-1}" for subscripts; the page renders them.

/** Softmax of an array (max-subtracted, in float64). */
export function softmax(scores) {
  let m = -Infinity;
  for (const s of scores) if (s > m) m = s;
  const e = Array.from(scores, (s) => Math.exp(s - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/** <q, h_i> for every row h_i of a rows x cols matrix. */
export function dotScores(q, data, rows, cols) {
  const out = new Array(rows).fill(0);
  for (let i = 0; i < rows; i++) {
    let s = 0;
    for (let j = 0; j < cols; j++) s += q[j] * data[i * cols + j];
    out[i] = s;
  }
  return out;
}

/** sum_i w_i h_i over the rows of a rows x cols matrix. */
export function weightedSum(w, data, rows, cols) {
  const out = new Array(cols).fill(0);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j] += w[i] * data[i * cols + j];
  return out;
}

/** Largest |a_i - b_i| (Infinity when the lengths differ). */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/**
 * A check's max |Δ| for the page. The engine computes in float32 and this file in float64, so a weight
 * the engine rounds to 0 (e.g. exp(-330)) differs by a number like 3e-140: far below anything float32
 * holds, and not a disagreement worth a reader's attention. Below 1e-12 it reads "< 1e-12".
 */
export function formatDiff(d) {
  if (d === 0) return '0';
  if (d < 1e-12) return '< 1e-12';
  return d.toExponential(1);
}

/** The index of the largest value. */
export function argmax(v) {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** A one-hot weight row of length n (the "what if it looked only here" override). */
export function oneHot(n, i) {
  const row = new Array(n).fill(0);
  row[i] = 1;
  return row;
}

const SCORE = {
  dot: 'score_i = ⟨Q, h_i⟩',
  general: 'score_i = Qᵀ W_a h_i',
  additive: 'score_i = vᵀ tanh(W_q Q + W_k h_i)',
};

/**
 * The formulas of one decoder step for a model configuration { style, score, inputFeeding }.
 * Returns { attention: bool, query, keys, score, weights, context, state, output }.
 */
export function stepFormulas(config) {
  const style = config.style;
  if (style === 'none') {
    return {
      attention: false,
      query: 'S_0 = h_T',
      keys: 'no keys: h_1..h_n are never looked at again',
      score: null, weights: null, context: null,
      state: 'S_k = RNN(emb(y_{k-1}), S_{k-1})',
      output: 'p(y_k) = softmax(W_o S_k + b_o)',
    };
  }
  const bahdanau = style === 'bahdanau';
  return {
    attention: true,
    query: bahdanau ? 'Q = S_{k-1}' : 'Q = S_k',
    keys: 'K_i = V_i = h_i',
    score: SCORE[config.score] ?? SCORE.dot,
    weights: 'w_{ki} = exp(score_i) / Σ_j exp(score_j)',
    context: 'c_k = Σ_i w_{ki} h_i',
    state: bahdanau
      ? 'S_k = RNN([emb(y_{k-1}); c_k], S_{k-1})'
      : config.inputFeeding ? 'S_k = RNN([emb(y_{k-1}); h̃_{k-1}], S_{k-1})' : 'S_k = RNN(emb(y_{k-1}), S_{k-1})',
    output: 'h̃_k = tanh(W_c [c_k; S_k] + b_c),  p(y_k) = softmax(W_o h̃_k + b_o)',
  };
}

/**
 * Checks a StepResult against the encoder memory { data, rows, cols } in plain JavaScript.
 * Returns [{ what, diff, ok }]; a step whose attention was overridden skips the softmax check
 * (its weights are the override, not softmax(scores)).
 */
export function checkStep(step, memory, config, overridden = false) {
  if (config.style === 'none') return [];
  const out = [];
  const tol = (scale) => 1e-4 * Math.max(1, scale);
  if (!overridden) {
    const d = maxAbsDiff(softmax(step.scores), step.attention);
    out.push({ what: 'softmax(scores) = w', diff: d, ok: d <= 1e-4 });
  }
  const c = weightedSum(step.attention, memory.data, memory.rows, memory.cols);
  const dc = maxAbsDiff(c, step.context);
  out.push({ what: 'Σ w_i h_i = c_k', diff: dc, ok: dc <= tol(Math.max(...c.map(Math.abs))) });
  if (config.score === 'dot' && step.query.length === memory.cols) {
    const s = dotScores(step.query, memory.data, memory.rows, memory.cols);
    const ds = maxAbsDiff(s, step.scores);
    out.push({ what: '⟨Q, h_i⟩ = score_i', diff: ds, ok: ds <= tol(Math.max(...s.map(Math.abs))) });
  }
  return out;
}
