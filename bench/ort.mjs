// attnseq against onnxruntime-web, side by side in one Node process, on the same model and the same work:
// the npm package's `model.encode(src)` against an ORT session running the exported encoder graph, and
// `dec.step()` against an ORT session running the exported one-step graph (its new state fed back).
// attnseq runs twice, from the same checkpoint: f32, and int8 (loadModel(bytes, { quantize: 'int8' })).
// bench/ort.sh runs it after exporting the graphs (tools/pytorch/export_onnx.py). It measures; it never
// fails on time. It does fail, and prints no comparison, when ORT's and attnseq's (f32) outputs disagree,
// or when int8's greedy tokens mostly differ from f32's.
//
//   node bench/ort.mjs [--rounds N] [--budget SECONDS] [--H 128,256,512] [--V 1000] [--dir build/onnx] [--out FILE]
//
// --V: the exported model's vocabulary; it reads build/onnx/ref-H<H>.* at V = 1000 (the reference model)
// and ref-H<H>-V<V>.* at any other V (export_onnx.py --V names them so).
// onnxruntime-web comes from node_modules (an npm dev dependency): its wasm backend, SIMD, one thread
// (ort.env.wasm.numThreads = 1); in Node it reads its .wasm from node_modules/onnxruntime-web/dist.
// Results: a table per clock, and FILE (default build/bench-results/ort.json at V = 1000, which
// bench/run.sh and bench/js_step.mjs read through bench/ort_results.mjs; ort-V<V>.json beside it at any
// other V, which they do not read). bench/README.md explains the output.
import * as ort from 'onnxruntime-web';
import * as pkg from '../wasm/attnseq.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ORT_RESULTS } from './ort_results.mjs';

// ---- options ------------------------------------------------------------------------------------
const args = process.argv.slice(2);
const opt = { rounds: 3, budget: 0.3, H: [128, 256, 512], V: 1000, dir: 'build/onnx', out: null };
for (let i = 0; i < args.length; i++) {
  const [k, v0] = args[i].split('=');
  const v = v0 ?? args[++i];
  if (k === '--rounds') opt.rounds = Number(v);
  else if (k === '--budget') opt.budget = Number(v);
  else if (k === '--H') opt.H = v.split(',').map(Number);
  else if (k === '--V') opt.V = Number(v);
  else if (k === '--dir') opt.dir = v;
  else if (k === '--out') opt.out = v;
  else {
    console.error('usage: node bench/ort.mjs [--rounds N] [--budget SECONDS] [--H 128,256,512] [--V 1000] [--dir build/onnx] [--out FILE]');
    process.exit(2);
  }
}
const REF_V = 1000;  // the reference model's vocabulary, the one every other benchmark uses
if (!Number.isInteger(opt.V) || opt.V < 5) {
  console.error(`ort.mjs: --V ${opt.V}: the vocabulary must be a whole number of at least 5 (ids 0-3 are the specials)`);
  process.exit(2);
}
// V = 1000's figures go where run.sh and js_step.mjs read them; another V's to a file of its own, so
// that their V = 1000 tables never quote an ORT step at another vocabulary.
opt.out ??= opt.V === REF_V ? ORT_RESULTS : path.join(path.dirname(ORT_RESULTS), `ort-V${opt.V}.json`);
// The exported files' stem, as tools/pytorch/export_onnx.py names them.
const stem = (H) => path.join(opt.dir, opt.V === REF_V ? `ref-H${H}` : `ref-H${H}-V${opt.V}`);

const BATCH = 64;          // steps between restarts (a fresh decoder / the encoder's state again)
const STEP_BATCHES = 3;    // one step repetition: 3 x 64 steps
const ENCODES = 20;        // one encode repetition: 20 encodes
const CHECK_STEPS = 8;     // steps compared between attnseq and ORT before anything is timed
const TOL = 1e-4;          // largest |difference| allowed in encoder outputs, logits and attention weights
// int8 changes the numbers, so it is not held to TOL; its greedy token (the argmax of the logits) at each
// of the BATCH forced steps must be f32's on at least this share of them. int8 moves the logits by up to
// about 3e-3 (H = 256, V = 10000), and random weights leave the top two logits of some steps closer than
// that (4e-4 at the closest of those 64 steps), so a step or two may flip; a broken int8 path agrees on
// about 1 / V of them.
const INT8_AGREE = 0.9;

ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;
ort.env.logLevel = 'error';

const median = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const cpuMicros = () => { const u = process.cpuUsage(); return u.user + u.system; };
const maxAbsDiff = (a, b) => {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
const loadavg = () => os.loadavg().map((x) => Number(x.toFixed(2)));
const argmax = (a) => {
  let k = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[k]) k = i;
  return k;
};

// ---- set-up: per H, the attnseq models (f32, int8) and the two ORT sessions from the exported files
async function setUp(H) {
  const base = stem(H);
  const meta = JSON.parse(fs.readFileSync(`${base}.json`, 'utf8'));
  if (meta.H !== H || meta.V !== opt.V) throw new Error(`${base}.json: exported for H=${meta.H} V=${meta.V}, not H=${H} V=${opt.V}`);
  const bytes = new Uint8Array(fs.readFileSync(`${base}.safetensors`));
  const model = await pkg.loadModel(bytes);
  const model8 = await pkg.loadModel(bytes, { quantize: 'int8' });
  const c = model.config;
  if (c.hidden !== H || c.srcVocabSize !== opt.V || c.tgtVocabSize !== opt.V || c.tokenizer !== 'ids' || c.cell !== 'gru' ||
      c.style !== 'luong' || c.score !== 'dot' || c.inputFeeding)
    throw new Error(`${base}.safetensors: not the reference model at H=${H}, V=${opt.V} (${JSON.stringify(c)})`);
  if (model8.config.quantization !== 'int8')
    throw new Error(`${base}.safetensors loaded with { quantize: 'int8' } says quantization ${model8.config.quantization}`);
  const so = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const encS = await ort.InferenceSession.create(`${base}-encode.onnx`, so);
  const stepS = await ort.InferenceSession.create(`${base}-step.onnx`, so);
  const src = Int32Array.from(meta.src);
  const srcT = new ort.Tensor('int64', BigInt64Array.from(meta.src, BigInt), [meta.T]);
  // The token each step is fed: bos first, then the previous step's forced token (what a decoder
  // forced to emit meta.forced[k] at step k feeds itself at step k + 1).
  const prevIds = [meta.bos, ...meta.forced.slice(0, BATCH - 1)];
  const prevT = prevIds.map((id) => new ort.Tensor('int64', BigInt64Array.of(BigInt(id)), [1]));
  const enc = model.encode(src), enc8 = model8.encode(src);
  const e0 = await encS.run({ src: srcT });
  return {
    H, meta, model, enc, model8, enc8, encS, stepS, src, srcT, prevT, forced: meta.forced.slice(0, BATCH),
    encOut: e0.enc_out, state0: e0.state,
  };
}

// ---- agreement: encoder outputs, then CHECK_STEPS steps' logits and attention -------------------
async function check(s) {
  const mem = s.enc.memory();
  const d = { encOut: maxAbsDiff(mem.data, s.encOut.data), state: maxAbsDiff(mem.finalState, s.state0.data), logits: 0, attention: 0, twinLogits: 0, twinAttention: 0 };
  const dec = s.model.decoder(s.enc, { maxLength: 1000 });
  let state = s.state0;
  for (let k = 0; k < CHECK_STEPS; k++) {
    const a = dec.step({ force: s.forced[k] });
    const o = await s.stepS.run({ prev: s.prevT[k], state, enc_out: s.encOut });
    state = o.new_state;
    d.logits = Math.max(d.logits, maxAbsDiff(a.logits, o.logits.data));
    d.attention = Math.max(d.attention, maxAbsDiff(a.attention, o.attention.data));
    if (k < s.meta.twin.steps) {  // and the PyTorch twin's own step() (recorded by the exporter)
      d.twinLogits = Math.max(d.twinLogits, maxAbsDiff(a.logits, s.meta.twin.logits[k]));
      d.twinAttention = Math.max(d.twinAttention, maxAbsDiff(a.attention, s.meta.twin.attention[k]));
    }
  }
  dec.dispose();
  return d;
}

// int8 against f32 on the same BATCH forced steps (same prefix at every step): the share of steps whose
// greedy token, the argmax of the logits, is the same, and the largest logit difference (information).
function checkInt8(s) {
  const d32 = s.model.decoder(s.enc, { maxLength: 1000 }), d8 = s.model8.decoder(s.enc8, { maxLength: 1000 });
  let same = 0, logits = 0;
  for (let k = 0; k < BATCH; k++) {
    const a = d32.step({ force: s.forced[k] }), b = d8.step({ force: s.forced[k] });
    same += argmax(a.logits) === argmax(b.logits) ? 1 : 0;
    logits = Math.max(logits, maxAbsDiff(a.logits, b.logits));
  }
  d32.dispose();
  d8.dispose();
  return { steps: BATCH, same, share: same / BATCH, logits };
}

// ---- one repetition of each row: [wall µs, cpu µs] per operation ---------------------------------
function attnseqStep(s, model, enc) {
  let wall = 0, cpu = 0, sink = 0;
  for (let b = 0; b < STEP_BATCHES; b++) {
    const dec = model.decoder(enc, { maxLength: 1000 });  // made and disposed outside the timing
    const c0 = cpuMicros(), t0 = performance.now();
    for (let i = 0; i < BATCH; i++) sink += dec.step({ force: s.forced[i] }).logits[0];
    const t1 = performance.now(), c1 = cpuMicros();
    wall += t1 - t0; cpu += c1 - c0;
    dec.dispose();
  }
  if (Number.isNaN(sink)) console.log(sink);
  return [(wall * 1000) / (STEP_BATCHES * BATCH), cpu / (STEP_BATCHES * BATCH)];
}
async function ortStep(s) {
  let wall = 0, cpu = 0, sink = 0;
  for (let b = 0; b < STEP_BATCHES; b++) {
    let state = s.state0;  // the encoder's state again, as a fresh decoder starts from it
    const c0 = cpuMicros(), t0 = performance.now();
    for (let i = 0; i < BATCH; i++) {
      const o = await s.stepS.run({ prev: s.prevT[i], state, enc_out: s.encOut });
      state = o.new_state;
      sink += o.logits.data[0];
    }
    const t1 = performance.now(), c1 = cpuMicros();
    wall += t1 - t0; cpu += c1 - c0;
  }
  if (Number.isNaN(sink)) console.log(sink);
  return [(wall * 1000) / (STEP_BATCHES * BATCH), cpu / (STEP_BATCHES * BATCH)];
}
function attnseqEncode(s, model) {
  const encs = [];
  const c0 = cpuMicros(), t0 = performance.now();
  for (let i = 0; i < ENCODES; i++) encs.push(model.encode(s.src));
  const t1 = performance.now(), c1 = cpuMicros();
  for (const e of encs) e.dispose();  // outside the timing
  return [((t1 - t0) * 1000) / ENCODES, (c1 - c0) / ENCODES];
}
async function ortEncode(s) {
  let sink = 0;
  const c0 = cpuMicros(), t0 = performance.now();
  for (let i = 0; i < ENCODES; i++) sink += (await s.encS.run({ src: s.srcT })).enc_out.data[0];
  const t1 = performance.now(), c1 = cpuMicros();
  if (Number.isNaN(sink)) console.log(sink);
  return [((t1 - t0) * 1000) / ENCODES, (c1 - c0) / ENCODES];
}
// [row, one repetition, the row of the other engine on the same work]; int8 is paired with ORT too.
const ROWS = [
  ['attnseq_step', (s) => attnseqStep(s, s.model, s.enc), 'ort_step'],
  ['ort_step', ortStep, 'attnseq_step'],
  ['attnseq_int8_step', (s) => attnseqStep(s, s.model8, s.enc8), 'ort_step'],
  ['attnseq_encode', (s) => attnseqEncode(s, s.model), 'ort_encode'],
  ['ort_encode', ortEncode, 'attnseq_encode'],
  ['attnseq_int8_encode', (s) => attnseqEncode(s, s.model8), 'ort_encode'],
];

// One measurement of one H: repetitions of every row, back to back in an order that rotates
// (attnseq, ORT, attnseq int8, ...), until `budget` seconds per row and at least 9. Per row the median
// over repetitions, and the paired ratio attnseq / ORT: the median over repetitions of the ratio of
// the two engines' times in the same repetition (the figure least moved by other processes).
async function measure(s) {
  const reps = ROWS.map(() => ({ wall: [], cpu: [] }));
  const t0 = performance.now();
  for (let n = 0; n < 400 && (n < 9 || performance.now() - t0 < opt.budget * 1000 * ROWS.length); n++) {
    for (let j = 0; j < ROWS.length; j++) {
      const i = (j + n) % ROWS.length;
      const [w, c] = await ROWS[i][1](s);
      reps[i].wall.push(w); reps[i].cpu.push(c);
    }
  }
  const out = {};
  const at = (row) => reps[ROWS.findIndex(([r]) => r === row)];
  ROWS.forEach(([row, , other], i) => {
    const w = reps[i].wall;
    const paired = (key) => median(reps[i][key].map((x, k) => x / at(other)[key][k]));
    out[row] = { us: median(w), min: Math.min(...w), max: Math.max(...w), cpu: median(reps[i].cpu), reps: w.length, paired: paired('wall'), cpuPaired: paired('cpu') };
  });
  return out;
}

// ---- run ----------------------------------------------------------------------------------------
const cpuModel = os.cpus()[0]?.model ?? '';
const loadStart = loadavg();
console.log(`== ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC  node ${process.version}  attnseq ${await pkg.buildInfo()}  onnxruntime-web ${ort.env.versions.web} (wasm, SIMD, numThreads ${ort.env.wasm.numThreads})  nproc=${os.cpus().length}  ${cpuModel}`);
console.log(`== V = ${opt.V}${opt.V === REF_V ? ' (the reference model)' : ''}; load average ${loadStart.join(' ')} (start)`);
const setups = [];
for (const H of opt.H) setups.push(await setUp(H));

// Nothing is timed, nor written, unless both engines compute the same thing, and int8 mostly picks
// the tokens f32 picks.
let agree = true;
const checks = {}, int8Checks = {};
for (const s of setups) {
  const d = await check(s);
  checks[s.H] = d;
  const ok = Object.values(d).every((x) => x <= TOL);
  agree &&= ok;
  console.log(`CHECK H=${s.H} V=${opt.V} max|attnseq - ORT|: enc_out=${d.encOut.toExponential(1)} state=${d.state.toExponential(1)} logits=${d.logits.toExponential(1)} attention=${d.attention.toExponential(1)} over ${CHECK_STEPS} steps; max|attnseq - PyTorch twin|: logits=${d.twinLogits.toExponential(1)} attention=${d.twinAttention.toExponential(1)} over ${s.meta.twin.steps} steps; tolerance ${TOL}: ${ok ? 'ok' : 'DISAGREE'}`);
  const q = checkInt8(s);
  int8Checks[s.H] = q;
  const ok8 = q.share >= INT8_AGREE;
  agree &&= ok8;
  console.log(`CHECK int8 H=${s.H} V=${opt.V} greedy token (argmax of the logits) the same as f32's on ${q.same}/${q.steps} forced steps (${(100 * q.share).toFixed(0)}%), max|int8 - f32| logits=${q.logits.toExponential(1)}; at least ${100 * INT8_AGREE}% needed: ${ok8 ? 'ok' : 'DISAGREE'}`);
}
if (!agree) {
  fs.rmSync(opt.out, { force: true });  // and no earlier figures left for run.sh / js_step.mjs to quote
  console.error(`ort.mjs: attnseq and onnxruntime-web disagree on the same model and input, or int8's greedy tokens are not f32's; no comparison printed, ${opt.out} removed`);
  process.exit(1);
}

for (const s of setups) for (let w = 0; w < 2; w++) await measure(s);  // warm-up: V8 tier-up, caches
const res = {};
for (let r = 1; r <= opt.rounds; r++) {
  for (const s of setups) {
    const m = await measure(s);
    (res[s.H] ??= []).push(m);
    for (const [row] of ROWS) {
      const x = m[row];
      console.log(`round=${r} H=${s.H} V=${opt.V} what=${row} us=${x.us.toFixed(2)} min=${x.min.toFixed(2)} max=${x.max.toFixed(2)} cpu_us=${x.cpu.toFixed(2)} reps=${x.reps} paired=${x.paired.toFixed(3)} cpu_paired=${x.cpuPaired.toFixed(3)}`);
    }
  }
}
const loadEnd = loadavg();
console.log(`== load average ${loadEnd.join(' ')} (end)`);

// Per row the lowest of the rounds' medians (other processes only ever add time); the paired ratio
// attnseq / ORT is the median of the rounds' paired ratios. `int8_` keys: attnseq int8 against ORT.
const best = (H, row, key = 'us') => Math.min(...res[H].map((m) => m[row][key]));
const pairedOf = (H, row, key = 'paired') => median(res[H].map((m) => m[row][key]));
const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const fix = (x, d) => Number(x.toFixed(d));
const results = {};
console.log('');
for (const s of setups) {
  const H = s.H, r = { V: opt.V };
  for (const [row] of ROWS) {
    r[`${row}_us`] = fix(best(H, row), 2);
    r[`${row}_cpu_us`] = fix(best(H, row, 'cpu'), 2);
  }
  for (const what of ['step', 'encode']) {
    for (const [pre, row] of [['', `attnseq_${what}`], ['int8_', `attnseq_int8_${what}`]]) {
      r[`${what}_${pre}ratio`] = fix(r[`${row}_us`] / r[`ort_${what}_us`], 3);
      r[`${what}_${pre}paired`] = fix(pairedOf(H, row), 3);
      r[`${what}_${pre}cpu_ratio`] = fix(r[`${row}_cpu_us`] / r[`ort_${what}_cpu_us`], 3);
      r[`${what}_${pre}cpu_paired`] = fix(pairedOf(H, row, 'cpuPaired'), 3);
    }
    console.log(`RESULT build=ort-side-by-side H=${H} V=${opt.V} what=${what} attnseq_us=${r[`attnseq_${what}_us`]} ort_us=${r[`ort_${what}_us`]} ratio=${r[`${what}_ratio`]} paired=${r[`${what}_paired`]} attnseq_cpu_us=${r[`attnseq_${what}_cpu_us`]} ort_cpu_us=${r[`ort_${what}_cpu_us`]} cpu_ratio=${r[`${what}_cpu_ratio`]} cpu_paired=${r[`${what}_cpu_paired`]} attnseq_int8_us=${r[`attnseq_int8_${what}_us`]} int8_ratio=${r[`${what}_int8_ratio`]} int8_paired=${r[`${what}_int8_paired`]} attnseq_int8_cpu_us=${r[`attnseq_int8_${what}_cpu_us`]} int8_cpu_ratio=${r[`${what}_int8_cpu_ratio`]} int8_cpu_paired=${r[`${what}_int8_cpu_paired`]}`);
  }
  results[H] = r;
}

const table = (cpu, title) => {
  const k = cpu ? '_cpu_us' : '_us', rk = cpu ? 'cpu_ratio' : 'ratio', pk = cpu ? 'cpu_paired' : 'paired';
  console.log(`\n### ${title}\n`);
  console.log('| H | V | attnseq step | attnseq int8 step | ORT step | ratio (paired) | int8 ratio (paired) | attnseq encode | attnseq int8 encode | ORT encode | ratio (paired) | int8 ratio (paired) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const s of setups) {
    const r = results[s.H];
    const ratio = (w, pre) => `${r[`${w}_${pre}${rk}`].toFixed(2)}x (${r[`${w}_${pre}${pk}`].toFixed(2)}x)`;
    const cell = (w) => `${f(r[`attnseq_${w}${k}`])} | ${f(r[`attnseq_int8_${w}${k}`])} | ${f(r[`ort_${w}${k}`])} | ${ratio(w, '')} | ${ratio(w, 'int8_')}`;
    console.log(`| ${s.H} | ${opt.V} | ${cell('step')} | ${cell('encode')} |`);
  }
};
table(false, `Wall clock, V = ${opt.V}, µs per step (batch 1) and per encode (T = 32), lowest of the rounds' medians; ratio = attnseq / ORT, f32 and int8 (paired: median of per-repetition ratios)`);
table(true, `CPU time (process.cpuUsage()), V = ${opt.V}, same measurements, µs`);
console.log(`\nload average ${loadStart.join(' ')} (start), ${loadEnd.join(' ')} (end); nproc ${os.cpus().length}`);

// The issues' targets (for information), judged on the paired wall-clock ratio, the figure least moved
// by load (on a loaded machine the lowest medians of the two engines can come from different moments);
// the CPU-time paired ratio is printed beside it. At V = 1000: step at most 0.5x ORT at H = 128 and 256,
// encode at most 0.5x at every H, and at H = 512 no slower than ORT (f32). At a real vocabulary (any
// other V; the output-layer issue asks for V = 10000): step at most 0.5x ORT at H = 256 and 512, for f32
// and for int8.
const met = (c) => (c ? 'met' : 'NOT met');
const P = (H, key) => results[H]?.[key];
const verdict = (H, w, limit, pre = '') => `H=${H} ${P(H, `${w}_${pre}paired`).toFixed(2)}x (CPU ${P(H, `${w}_${pre}cpu_paired`).toFixed(2)}x) ${met(P(H, `${w}_${pre}paired`) <= limit)}`;
const has = (H) => H in results;
console.log(`targets (paired ratio attnseq / ORT, wall clock, V = ${opt.V}):`);
if (opt.V === REF_V) {
  if (has(128) || has(256)) console.log(`  step <= 0.5x at H = 128, 256: ${[128, 256].filter(has).map((H) => verdict(H, 'step', 0.5)).join(', ')}`);
  console.log(`  encode <= 0.5x at every H: ${setups.map((s) => verdict(s.H, 'encode', 0.5)).join(', ')}`);
  if (has(512)) console.log(`  no regression at H = 512 (attnseq <= ORT): step ${verdict(512, 'step', 1)}, encode ${verdict(512, 'encode', 1)}`);
} else {
  const Hs = [256, 512].filter(has);
  if (Hs.length) {
    console.log(`  step <= 0.5x at H = 256, 512, f32: ${Hs.map((H) => verdict(H, 'step', 0.5)).join(', ')}`);
    console.log(`  step <= 0.5x at H = 256, 512, int8: ${Hs.map((H) => verdict(H, 'step', 0.5, 'int8_')).join(', ')}`);
  } else {
    console.log('  (the output-layer targets are at H = 256 and 512: run with --H 256,512)');
  }
}

fs.mkdirSync(path.dirname(opt.out), { recursive: true });
fs.writeFileSync(opt.out, `${JSON.stringify({
  date: new Date().toISOString(), node: process.version, ort: ort.env.versions.web, attnseq: await pkg.buildInfo(),
  machine: { nproc: os.cpus().length, cpu: cpuModel }, load: { start: loadStart, end: loadEnd },
  V: opt.V, rounds: opt.rounds, budget: opt.budget, tolerance: TOL, checks, int8Agree: INT8_AGREE, int8Checks, results,
}, null, 1)}\n`);
console.log(`written: ${opt.out}`);
for (const s of setups) {
  s.enc.dispose(); s.enc8.dispose(); s.model.dispose(); s.model8.dispose();
  await s.encS.release(); await s.stepS.release();
}
