// What the JavaScript layer costs per decoder step: `dec.step()` through the public API beside the
// engine's raw C++ step (`dec._h.rawStepMicros(n)`, same module, same source, same run), on the
// reference model written in JS (bench/reference_model.mjs). It measures; it never fails on time.
//
//   node bench/js_step.mjs [--rounds N] [--budget SECONDS] [--H 64,128,256,512] [--baseline PATH]
//
// Rows, per H, interleaved within every round: raw (C++ loop, no JS), dec.step() (default topk 5),
// dec.step() with topk: 0, and the binding's step call without the wrapper (the plain export
// `_attnseq_decoder_step`, or an older module's Embind `_h.stepInto(id, 5)`), which splits the JS
// layer's cost between the binding and the wrapper. --baseline PATH: another copy of the package's
// wrapper (PATH = its attnseq.js, its module in ../dist/ beside it, e.g. a saved copy of an older
// build) whose raw and dec.step() rows run interleaved with these, for a before/after in one run.
// bench/README.md explains the output; RESULTS.md keeps the last table.
import * as pkg from '../wasm/attnseq.js';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ORT_NOT_MEASURED, readOrtResults } from './ort_results.mjs';
import { referenceModel } from './reference_model.mjs';

// ---- options ------------------------------------------------------------------------------------
const args = process.argv.slice(2);
const opt = { rounds: 5, budget: 0.25, H: [64, 128, 256, 512], baseline: null };
for (let i = 0; i < args.length; i++) {
  const [k, v0] = args[i].split('=');
  const v = v0 ?? args[++i];
  if (k === '--rounds') opt.rounds = Number(v);
  else if (k === '--budget') opt.budget = Number(v);
  else if (k === '--H') opt.H = v.split(',').map(Number);
  else if (k === '--baseline') opt.baseline = v;
  else {
    console.error('usage: node bench/js_step.mjs [--rounds N] [--budget SECONDS] [--H 64,128,256,512] [--baseline PATH]');
    process.exit(2);
  }
}

const V = 1000, T = 32, BATCH = 64;  // vocabulary (both sides), source length, steps between restarts
// onnxruntime-web's step, µs, from the last `bash bench/ort.sh` (build/bench-results/ort.json), or none.
const ORT = readOrtResults();
const ORT_STEP = ORT ? ORT.step : {};
const ORT_STEP_CPU = ORT ? ORT.stepCpu : {};

// ---- splitmix64: a seeded PRNG, the same numbers on every platform ----------------------------
function splitmix64(seed) {
  const M = (1n << 64n) - 1n;
  let s = BigInt(seed) & M;
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
}
const uniform = (next, lo, hi) => lo + (hi - lo) * Number(next() >> 40n) / 16777216;

// The reference model (bench/reference_model.mjs) with weights uniform in [-0.1, 0.1) from
// splitmix64(seed), in file order.
function referenceWeights(H, seed) {
  const next = splitmix64(seed);
  return referenceModel(H, V, () => uniform(next, -0.1, 0.1));
}

// ---- timing helpers -----------------------------------------------------------------------------
const median = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const cpuMicros = () => { const u = process.cpuUsage(); return u.user + u.system; };

// 64 forced ids (never EOS = 2, never below 4) from a fixed pseudo-random sequence.
const nextId = splitmix64(7);
const FORCE = Array.from({ length: BATCH }, () => 4 + Number(nextId() % BigInt(V - 4)));

// The binding's step call alone, without the wrapper: it fills the step record in wasm memory,
// which is left unread here. Whichever the module has: the plain export (this tree), or an older
// module's Embind method.
function bareStepOf(M) {
  if (typeof M._attnseq_decoder_step === 'function')
    return { name: '_attnseq_decoder_step(h, id, 5, 0)', prepare: (h) => h.address(), call: (p, id) => M._attnseq_decoder_step(p, id, 5, 0) };
  return { name: '_h.stepInto(id, 5)', prepare: (h) => h, call: (h, id) => h.stepInto(id, 5) };
}

// The same call followed by the one copy the record's contract asks for: the step record out of wasm
// memory into a fresh ArrayBuffer (HEAPF32.slice, as dec.step() does), with no views or objects made.
// Its difference to the bare call is what the fresh copy alone costs.
function copyStepOf(M) {
  if (typeof M._attnseq_decoder_step !== 'function') return null;
  return {
    prepare: (h) => ({ p: h.address(), base: h.record() / 4, size: h.recordLayout().size }),
    call: (x, id) => { M._attnseq_decoder_step(x.p, id, 5, 0); return M.HEAPF32.slice(x.base, x.base + x.size)[0]; },
  };
}

// One repetition of the API step: `batches` runs of 64 forced steps, each on a fresh decoder made
// outside the timed interval. Returns [wall µs per step, cpu µs per step].
function apiRep(model, enc, decOpts, batches, bare) {
  let wall = 0, cpu = 0;
  for (let b = 0; b < batches; b++) {
    const dec = model.decoder(enc, decOpts);
    const h = bare && bare.prepare(dec._h);  // resolved outside the timing (the getter checks for dispose)
    let sink = 0;
    const c0 = cpuMicros(), t0 = performance.now();
    if (bare) for (let i = 0; i < BATCH; i++) sink += bare.call(h, FORCE[i]);
    else for (let i = 0; i < BATCH; i++) sink += dec.step({ force: FORCE[i] }).token;
    const t1 = performance.now(), c1 = cpuMicros();
    wall += t1 - t0; cpu += c1 - c0;
    dec.dispose();
    if (sink < 0) console.log(sink);
  }
  return [(wall * 1000) / (batches * BATCH), cpu / (batches * BATCH)];
}
// One repetition of the engine's raw step: 192 steps in C++ (restart every 64 steps, inside).
function rawRep(dec, n) {
  const c0 = cpuMicros();
  const us = dec._h.rawStepMicros(n, 1);
  return [us, (cpuMicros() - c0) / n];
}
// One measurement of one H: repetitions until `budget` seconds of timed work (at least 9). Each
// repetition runs every row once, back to back, in an order that rotates, so a burst of load from
// other processes hits the rows alike; per row the per-step medians over repetitions, and per row the
// median of the per-repetition ratio row / its reference row (the raw step of its own module; the
// paired ratio, the figure least moved by load). `vs_base`: dec.step() / the baseline's dec.step().
function measure(s) {
  const reps = WHAT.map(() => ({ wall: [], cpu: [] }));
  const t0 = performance.now();
  for (let n = 0; n < 400 && (n < 9 || performance.now() - t0 < opt.budget * 1000 * WHAT.length); n++) {
    for (let j = 0; j < WHAT.length; j++) {
      const i = (j + n) % WHAT.length;
      const [w, c] = WHAT[i][1](s);
      reps[i].wall.push(w); reps[i].cpu.push(c);
    }
  }
  const out = {};
  const at = (what) => reps[WHAT.findIndex(([w]) => w === what)];
  const paired = (a, b, key) => median(a[key].map((x, k) => x / b[key][k]));
  const over = (a, b, key) => median(a[key].map((x, k) => x - b[key][k]));  // µs above the reference
  WHAT.forEach(([what, , ref], i) => {
    const w = reps[i].wall;
    out[what] = {
      us: median(w), min: Math.min(...w), max: Math.max(...w), cpu: median(reps[i].cpu), reps: w.length,
      ratio: paired(reps[i], at(ref), 'wall'), cpuRatio: paired(reps[i], at(ref), 'cpu'),
      over: over(reps[i], at(ref), 'wall'), cpuOver: over(reps[i], at(ref), 'cpu'),
    };
  });
  out.fresh_copy = { over: over(at('binding_copy'), at('binding_step'), 'wall'), cpuOver: over(at('binding_copy'), at('binding_step'), 'cpu') };
  if (opt.baseline) {
    out.vs_base = { ratio: paired(at('js_step'), at('base_js_step'), 'wall'), cpuRatio: paired(at('js_step'), at('base_js_step'), 'cpu') };
  }
  return out;
}

// ---- setup --------------------------------------------------------------------------------------
const nextSrc = splitmix64(11);
const SRC = Array.from({ length: T }, () => 4 + Number(nextSrc() % BigInt(V - 4)));
const base = opt.baseline ? await import(pathToFileURL(path.resolve(opt.baseline)).href) : null;
async function setUp(lib, H, bytes) {
  const model = await lib.loadModel(bytes);
  if (model.config.hidden !== H || model.config.tokenizer !== 'ids') throw new Error(`unexpected config at H=${H}`);
  const enc = model.encode(SRC);
  const rawDec = model.decoder(enc, { maxLength: 1000 });  // only its handle's rawStepMicros is used
  return { model, enc, rawDec, bare: bareStepOf(model._M), copy: copyStepOf(model._M) };
}
const setups = [];
for (const H of opt.H) {
  const bytes = referenceWeights(H, 0x5eed0000 + H);
  setups.push({ H, bytes: bytes.length, cur: await setUp(pkg, H, bytes), base: base && await setUp(base, H, bytes) });
}
const bareName = setups[0].cur.bare.name;

// [row, one repetition, the row its paired ratio divides by]
const api = (m, topk, bare = null) => apiRep(m.model, m.enc, topk === undefined ? { maxLength: 1000 } : { maxLength: 1000, topk }, 3, bare);
const WHAT = [
  ['raw', (s) => rawRep(s.cur.rawDec, 3 * BATCH), 'raw'],
  ['js_step', (s) => api(s.cur), 'raw'],
  ['js_step_topk0', (s) => api(s.cur, 0), 'raw'],
  ['binding_step', (s) => api(s.cur, undefined, s.cur.bare), 'raw'],
  ['binding_copy', (s) => api(s.cur, undefined, s.cur.copy), 'raw'],
  ...(base ? [
    ['base_raw', (s) => rawRep(s.base.rawDec, 3 * BATCH), 'base_raw'],
    ['base_js_step', (s) => api(s.base), 'base_raw'],
  ] : []),
];

console.log(`== ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC  node ${process.version}  ${await pkg.buildInfo()}  nproc=${os.cpus().length}  ${os.cpus()[0]?.model ?? ''}`);
console.log(`== load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (start)`);
console.log(`== models: ${setups.map((s) => `H=${s.H} ${(s.bytes / 1e6).toFixed(1)} MB`).join(', ')}; source ${T} ids; ${opt.rounds} rounds, ${opt.budget} s per row per round`);
console.log(`== ${ORT ? ORT.describe : ORT_NOT_MEASURED}`);
if (base) console.log(`== baseline: ${path.resolve(opt.baseline)} (${await base.buildInfo()}; its binding: ${setups[0].base.bare.name})`);

// Warm-up: V8 tier-up of the wrapper and the Embind glue, caches, the allocator.
for (const s of setups) for (let w = 0; w < 2; w++) measure(s);

// ---- interleaved rounds: round -> H -> (repetitions of every row, back to back) ---------------
const res = {};  // res[H] = [per-round measure() result]
for (let r = 1; r <= opt.rounds; r++) {
  for (const s of setups) {
    const m = measure(s);
    (res[s.H] ??= []).push(m);
    for (const [what] of WHAT) {
      const x = m[what];
      console.log(`round=${r} H=${s.H} what=${what} us=${x.us.toFixed(2)} min=${x.min.toFixed(2)} max=${x.max.toFixed(2)} cpu_us=${x.cpu.toFixed(2)} reps=${x.reps} ratio=${x.ratio.toFixed(3)} cpu_ratio=${x.cpuRatio.toFixed(3)} over_us=${x.over.toFixed(2)}`);
    }
    if (m.vs_base) console.log(`round=${r} H=${s.H} what=vs_base ratio=${m.vs_base.ratio.toFixed(3)} cpu_ratio=${m.vs_base.cpuRatio.toFixed(3)}`);
  }
}
console.log(`== load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (end)`);

// Per row: the lowest of the rounds' medians (other processes only ever add time), and the median
// over rounds of the paired ratio (and paired difference) to its reference row.
const best = (H, w, key = 'us') => Math.min(...res[H].map((m) => m[w][key]));
const ratio = (H, w, key = 'ratio') => median(res[H].map((m) => m[w][key]));
const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
console.log('');
for (const s of setups) {
  const H = s.H;
  for (const [what, , ref] of WHAT) {
    if (what === ref) continue;
    console.log(`RESULT build=wasm-simd-js H=${H} what=${what} us=${best(H, what).toFixed(2)} raw_us=${best(H, ref).toFixed(2)} ratio=${ratio(H, what).toFixed(3)} over_us=${ratio(H, what, 'over').toFixed(2)} cpu_us=${best(H, what, 'cpu').toFixed(2)} raw_cpu_us=${best(H, ref, 'cpu').toFixed(2)} cpu_ratio=${ratio(H, what, 'cpuRatio').toFixed(3)} cpu_over_us=${ratio(H, what, 'cpuOver').toFixed(2)} ort_us=${ORT_STEP[H] ?? '-'}`);
  }
  console.log(`RESULT build=wasm-simd-js H=${H} what=fresh_copy over_us=${ratio(H, 'fresh_copy', 'over').toFixed(2)} cpu_over_us=${ratio(H, 'fresh_copy', 'cpuOver').toFixed(2)}`);
  if (base) console.log(`RESULT build=wasm-simd-js H=${H} what=vs_base ratio=${ratio(H, 'vs_base').toFixed(3)} cpu_ratio=${ratio(H, 'vs_base', 'cpuRatio').toFixed(3)}`);
}
const mainTable = (key, title) => {
  console.log(`\n### ${title}\n`);
  console.log('| H | raw step (same module) | dec.step() | ratio | dec.step() − raw | ORT-web step (bench/ort.sh) | beats ORT |');
  console.log('|---|---|---|---|---|---|---|');
  for (const s of setups) {
    const H = s.H, raw = best(H, 'raw', key), api = best(H, 'js_step', key), ort = (key === 'us' ? ORT_STEP : ORT_STEP_CPU)[H];
    const r = ratio(H, 'js_step', key === 'us' ? 'ratio' : 'cpuRatio'), d = ratio(H, 'js_step', key === 'us' ? 'over' : 'cpuOver');
    console.log(`| ${H} | ${f(raw)} | ${f(api)} | ${r.toFixed(2)}x | ${d.toFixed(1)} | ${ort ? f(ort) : '-'} | ${ort ? (api < ort ? 'yes' : 'NO') : '-'} |`);
  }
  console.log(`\n${ORT ? ORT.describe : ORT_NOT_MEASURED}`);
};
mainTable('us', "dec.step() through the public JS API vs the engine's raw step (same module, same run), wall clock, µs per step (ratio and difference: medians of paired per-repetition figures)");
mainTable('cpu', 'Same, CPU time (process.cpuUsage(); leaves out time the scheduler gave to other processes), µs per step');
console.log('\n### Breakdown, µs per step, wall clock (paired ratio to raw) and CPU time (paired ratio)\n');
console.log(`| H | raw | binding \`${bareName}\`, no wrapper | binding + the record's fresh copy | the copy alone (paired difference) |`+' dec.step() topk 0 | dec.step() (topk 5) | raw CPU | dec.step() CPU |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const s of setups) {
  const H = s.H, raw = best(H, 'raw');
  const cell = (w) => `${f(best(H, w))} (${ratio(H, w).toFixed(2)}x)`;
  const copy = `${ratio(H, 'fresh_copy', 'over').toFixed(1)} (CPU ${ratio(H, 'fresh_copy', 'cpuOver').toFixed(1)})`;
  console.log(`| ${H} | ${f(raw)} | ${cell('binding_step')} | ${cell('binding_copy')} | ${copy} | ${cell('js_step_topk0')} | ${cell('js_step')} | ${f(best(H, 'raw', 'cpu'))} | ${f(best(H, 'js_step', 'cpu'))} (${ratio(H, 'js_step', 'cpuRatio').toFixed(2)}x) |`);
}
if (base) {
  console.log(`\n### Before (--baseline) and after, same run: each module's dec.step() against its own raw step; wall clock (CPU time)\n`);
  console.log('| H | before: ratio | before: − raw, µs | after: ratio | after: − raw, µs | after / before, dec.step() (paired) |');
  console.log('|---|---|---|---|---|---|');
  for (const s of setups) {
    const H = s.H;
    const c = (w, k1, k2, d) => `${ratio(H, w, k1).toFixed(d)} (${ratio(H, w, k2).toFixed(d)})`;
    console.log(`| ${H} | ${c('base_js_step', 'ratio', 'cpuRatio', 2)} | ${c('base_js_step', 'over', 'cpuOver', 1)} | ${c('js_step', 'ratio', 'cpuRatio', 2)} | ${c('js_step', 'over', 'cpuOver', 1)} | ${c('vs_base', 'ratio', 'cpuRatio', 2)} |`);
  }
}
for (const s of setups) for (const m of [s.cur, s.base]) if (m) { m.rawDec.dispose(); m.enc.dispose(); m.model.dispose(); }
