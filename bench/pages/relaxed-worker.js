// One side of bench/relaxed.mjs: a module Worker with the package's engine of its own, initialised
// with the relaxed products or without them (init's relaxedSimd), answering timing requests. It
// measures; it never fails on time.
import * as pkg from '/wasm/attnseq.js';
import { referenceModel } from '/bench/reference_model.mjs';
import { trainerOptions } from '/web/train/tasks.js';

const models = {};
const now = () => performance.now();
// Median of per-repetition times (ms) after one warm-up, repetitions until about `budget` s.
function median(run, budget) {
  run();
  const t = [];
  const end = now() + budget * 1000;
  while (t.length < 5 || (now() < end && t.length < 200)) {
    const t0 = now();
    run();
    t.push(now() - t0);
  }
  t.sort((a, b) => a - b);
  return t[t.length >> 1];
}

const jobs = {
  async init({ relaxed, H, words }) {
    await pkg.init(relaxed ? {} : { relaxedSimd: false });
    const fill = (i) => Math.sin(i) * 0.1;
    for (const h of H) models[`ref${h}`] = await pkg.loadModel(referenceModel(h, 1000, fill));
    for (const h of H) models[`ref${h}q`] = await pkg.loadModel(referenceModel(h, 1000, fill), { quantize: 'int8' });
    models.g2p = await pkg.loadModel('/models/g2p-en.safetensors');
    models.words = words;
    return pkg.buildInfo();
  },
  // Microseconds per raw decoder step (C++ loop) of `rows` rows on a 32-token source.
  step({ H, rows, int8, budget }) {
    const m = models[`ref${H}${int8 ? 'q' : ''}`];
    const enc = m.encode(Array.from({ length: 32 }, (_, i) => 4 + ((i * 37) % 990)));
    const dec = m.decoder(enc, { maxLength: 1000 });
    const ms = median(() => dec._h.rawStepMicros(256, rows), budget);  // a repetition: 256 steps
    dec.dispose();
    enc.dispose();
    return { us: (ms * 1000) / 256 };
  },
  // Training as the page's panel does it (web/train/tasks.js): ms per step, the median of 20-step runs.
  async train({ hidden, budget }) {
    const t = await pkg.createTrainer(trainerOptions({ task: 'dates', style: 'luong', score: 'dot', cell: 'gru', hidden, steps: 1000000, lr: 0.005 }));
    const ms = median(() => t.step(20), budget) / 20;
    t.dispose();
    return { ms };
  },
  // g2p-en, greedy: ms for the words one translate() at a time, and in one translateBatch().
  g2p({ budget }) {
    const m = models.g2p, w = models.words;
    return {
      loop: median(() => { for (const x of w) m.translate(x); }, budget),
      batch: median(() => m.translateBatch(w), budget),
    };
  },
};

globalThis.onmessage = async ({ data: { id, job, args } }) => {
  try {
    globalThis.postMessage({ id, result: await jobs[job](args) });
  } catch (e) {
    globalThis.postMessage({ id, error: String(e?.stack ?? e) });
  }
};
