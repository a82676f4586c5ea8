// The engine's Worker: training, evaluation and batch translation run here, off the main thread.
// It answers in the package's Worker protocol (wasm/rpc.js: {id, name, args} in; {id, result},
// {id, error} or, for long jobs, {id, progress} out), with AttnseqError's codes.
// {name: 'cancel', args: [jobId]} ends a long job at its next chunk boundary (it then resolves
// normally, with stopped: true). Client: web/train/client.js. Views and layout are the page's.
import { createTrainer, createEnsemble, loadModel, buildInfo, AttnseqError } from '../wasm/attnseq.js';
import { serve, Transfer } from '../wasm/rpc.js';
import { reverseSet, scoreReverse } from './study/data.js';

const jobs = new Map();          // id -> { cancelled }
let trainer = null;              // the one trainer of this worker (a new run replaces it)
let trainerStep = 0;             // steps it has taken
const models = new Map();        // url -> Model (successful loads only: a missing file may appear later)
const userModels = new Map();    // key -> Promise<Model>, least recently used first
const USER_MODELS = 4;

// Lets queued messages (a 'cancel') run between chunks of work.
const yieldToEvents = () => new Promise((r) => setTimeout(r, 0));

async function snapshot(t, probe, step) {
  if (!probe) return null;
  let m;
  try {
    m = await t.model();
    // An untrained model babbles up to the default 2n + 10 tokens; every built-in task's target is
    // at most n + 5, so n + 8 keeps the early matrices from filling the screen.
    const n = m.tokenize(probe).ids.length;
    const r = m.translate(probe, { maxLength: Math.max(12, n + 8) });
    return { step, text: r.text, srcTokens: r.srcTokens, tgtTokens: r.tgtTokens, rows: r.rows, cols: r.cols,
      attention: Array.from(r.attention), style: m.config.style };
  } catch (e) {
    return { step, error: { code: e.code ?? 'INTERNAL', message: e.message } };
  } finally {
    m?.dispose();
  }
}

const handlers = {
  async info() { return { build: await buildInfo() }; },

  cancel(_job, jobId) {
    const j = jobs.get(jobId);
    if (j) j.cancelled = true;
    return !!j;
  },

  // Creates a fresh trainer and trains it for options.steps steps in chunks of about chunkMs,
  // reporting after each chunk; every probeEvery steps (and at step 0) the probe is translated with
  // the current weights and its alignment sent along.
  async 'train.run'(job, { options, probe = '', probeEvery = 25, chunkMs = 60 } = {}) {
    trainer?.dispose();
    trainer = null;
    const t = await createTrainer(options);
    trainer = t;
    trainerStep = 0;
    const total = options.steps ?? 3000;
    let step = 0, msPerStep = 0, nextProbe = probeEvery;
    job.progress({ step: 0, steps: total, parameters: t.parameters, probe: await snapshot(t, probe, 0) });
    while (step < total && !job.cancelled) {
      let n = msPerStep > 0 ? Math.max(1, Math.round(chunkMs / msPerStep)) : 1;
      n = Math.min(n, total - step, Math.max(1, nextProbe - step));
      const t0 = performance.now();
      const r = t.step(n);
      const dt = (performance.now() - t0) / n;
      msPerStep = msPerStep > 0 ? 0.7 * msPerStep + 0.3 * dt : dt;
      step = trainerStep = r.step;
      const p = { step, steps: total, n, loss: r.loss, tokenAccuracy: r.tokenAccuracy, lr: r.lr,
        gradNorm: r.gradNorm, tokensPerSecond: r.tokensPerSecond };
      if (step >= nextProbe || step >= total) {
        p.probe = await snapshot(t, probe, step);
        nextProbe = step + probeEvery;
      }
      job.progress(p);
      await yieldToEvents();
    }
    return { step, steps: total, stopped: step < total };
  },

  // One translation off the page's main thread (its compare and beam views, the what-if note and the
  // prefix hint: beam 16 over a long input takes the engine longer than a frame). source: { url } of a
  // shipped model or { key, bytes } (a Blob or Uint8Array) of a user's, both kept loaded (a user's under
  // its key: the page gives a replaced model a new one); input and options as Model.translate takes
  // them; finalState: also return the encoder's final state h_T (as finalState).
  async translate(_job, { source, input, options, finalState = false } = {}) {
    let m, own = false;
    if (source?.urls) m = createEnsemble(await Promise.all(source.urls.map(getModel)));   // (holds no memory of its own)
    else if (source?.url) m = await getModel(source.url);
    else if (source?.key) m = await userModel(source.key, source.bytes);
    else {
      m = await loadBytes(source?.bytes);
      own = true;
    }
    try {
      const r = m.translate(input, options);
      if (finalState && !source?.urls) {
        const enc = m.encode(input);
        r.finalState = enc.memory().finalState;
        enc.dispose();
      }
      const buffers = new Set([r.attention.buffer, ...r.hypotheses.flatMap((x) => [x.attention.buffer, ...(x.memberAttention ?? []).map((a) => a.buffer)]),
        ...(r.memberAttention ?? []).map((a) => a.buffer)]);
      return new Transfer(r, [...buffers]);
    } finally {
      if (own) m.dispose();
    }
  },

  // The current weights as .safetensors bytes (transferred, not copied) and the step they are from.
  'train.save'() {
    if (!trainer) throw new AttnseqError('NOT_LOADED', 'nothing has been trained yet');
    const bytes = trainer.save();
    return new Transfer({ bytes, step: trainerStep }, [bytes.buffer]);
  },

  'train.evaluate'(_job, n = 200, seed) {
    if (!trainer) throw new AttnseqError('NOT_LOADED', 'nothing has been trained yet');
    return trainer.evaluate(n, seed);
  },

  'train.dispose'() {
    trainer?.dispose();
    trainer = null;
    return true;
  },

  // Exact-match accuracy of each model on the reverse task at each length (the same seeded sources
  // for every model). A model whose file is missing is reported, not fatal: the others still run.
  async 'study.run'(job, { models: specs, lengths, n = 20, seed = 1 } = {}) {
    const results = {};
    const ready = [];
    for (const s of specs) {
      try {
        const m = await getModel(s.url);
        results[s.key] = { status: 'ok', points: [], name: m.config.name, style: m.config.style };
        ready.push([s.key, m]);
      } catch (e) {
        results[s.key] = { status: e.status === 404 ? 'missing' : 'error', code: e.code ?? 'INTERNAL', message: e.message, points: [] };
      }
    }
    const total = lengths.length * n * ready.length;
    let done = 0, last = performance.now();
    job.progress({ done, total, models: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, { ...v, points: undefined }])) });
    outer: for (const bucket of reverseSet(lengths, n, seed)) {
      for (const [key, m] of ready) {
        let exact = 0, tok = 0;
        for (const src of bucket.sources) {
          if (job.cancelled) break outer;
          const sc = scoreReverse(src, m.translate(src).text);
          exact += sc.exact;
          tok += sc.tokenAccuracy;
          done++;
          if (performance.now() - last > 80) {
            job.progress({ done, total, length: bucket.length, key });
            await yieldToEvents();
            last = performance.now();
          }
        }
        const point = { length: bucket.length, accuracy: exact / n, tokenAccuracy: tok / n, n };
        results[key].points.push(point);
        job.progress({ done, total, length: bucket.length, key, point });
        await yieldToEvents();
        last = performance.now();
      }
    }
    return { results, stopped: job.cancelled, done, total };
  },
};

const loadBytes = async (b) => loadModel(b instanceof Blob ? new Uint8Array(await b.arrayBuffer()) : b);

// A user's model by the page's key, loaded once from its bytes; the last USER_MODELS keys stay loaded
// (a model evicted while a request awaits its load is disposed only after that request has used it:
// the awaiting request's continuation was queued first).
function userModel(key, bytes) {
  let p = userModels.get(key);
  if (p) userModels.delete(key);   // (re-inserted below: the most recently used is last)
  else {
    p = loadBytes(bytes);
    p.catch(() => { if (userModels.get(key) === p) userModels.delete(key); });   // a failed load is not kept
  }
  userModels.set(key, p);
  while (userModels.size > USER_MODELS) {
    const [oldest, q] = userModels.entries().next().value;
    userModels.delete(oldest);
    q.then((m) => m.dispose(), () => {});
  }
  return p;
}

async function getModel(url) {
  if (models.has(url)) return models.get(url);
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new AttnseqError('LOAD_FAILED', `could not fetch ${url}: ${e.message}`);
  }
  if (res.status === 404) throw Object.assign(new AttnseqError('LOAD_FAILED', `${new URL(url).pathname} was not found (HTTP 404)`), { status: 404 });
  if (!res.ok) throw Object.assign(new AttnseqError('LOAD_FAILED', `${new URL(url).pathname}: HTTP ${res.status}`), { status: res.status });
  const m = await loadModel(new Uint8Array(await res.arrayBuffer()));
  models.set(url, m);
  return m;
}

const receive = serve(handlers, (m, t) => self.postMessage(m, t), jobs);
self.onmessage = (e) => receive(e.data);
