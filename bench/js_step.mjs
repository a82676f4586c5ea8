// What the JavaScript layer costs per decoder step: `dec.step()` through the public API beside the
// engine's raw C++ step (`dec._h.rawStepMicros(n)`, same module, same source, same run), on the
// reference model built here as a .safetensors file in JS. It measures; it never fails on time.
//
//   node bench/js_step.mjs [--rounds N] [--budget SECONDS] [--H 128,256,512]
//
// Rows, per H, interleaved within every round: raw (C++ loop, no JS), dec.step() (default topk 5),
// dec.step() with topk: 0, and the binding's step call without the wrapper (`dec._h.stepInto(id, 5)`),
// which splits the JS layer's cost between the binding and the wrapper.
// bench/README.md explains the output; RESULTS.md keeps the last table.
import { loadModel, buildInfo } from '../wasm/attnseq.js';
import os from 'node:os';

// ---- options ------------------------------------------------------------------------------------
const args = process.argv.slice(2);
const opt = { rounds: 5, budget: 0.25, H: [128, 256, 512] };
for (let i = 0; i < args.length; i++) {
  const [k, v0] = args[i].split('=');
  const v = v0 ?? args[++i];
  if (k === '--rounds') opt.rounds = Number(v);
  else if (k === '--budget') opt.budget = Number(v);
  else if (k === '--H') opt.H = v.split(',').map(Number);
  else {
    console.error('usage: node bench/js_step.mjs [--rounds N] [--budget SECONDS] [--H 128,256,512]');
    process.exit(2);
  }
}

const V = 1000, T = 32, BATCH = 64;  // vocabulary (both sides), source length, steps between restarts
const ORT_STEP = { 128: 58, 256: 94, 512: 225 };  // onnxruntime-web 1.30, wasm SIMD, 1 thread, Node 20 (README)

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

// ---- the reference model as safetensors (docs/checkpoint-format.md; no metadata: ids-only) --
// GRU, luong, dot, no input feeding, no bridge, 1 layer, unidirectional, E = H, V = 1000.
function referenceModel(H, seed) {
  const gru = (p) => [
    [`${p}.weight_ih_l0`, [3 * H, H]], [`${p}.weight_hh_l0`, [3 * H, H]],
    [`${p}.bias_ih_l0`, [3 * H]], [`${p}.bias_hh_l0`, [3 * H]],
  ];
  const tensors = [
    ['encoder.embedding.weight', [V, H]], ...gru('encoder.rnn'),
    ['decoder.embedding.weight', [V, H]], ...gru('decoder.rnn'),
    ['decoder.combine.weight', [H, 2 * H]], ['decoder.combine.bias', [H]],
    ['decoder.out.weight', [V, H]], ['decoder.out.bias', [V]],
  ];
  const header = {};
  let off = 0;
  for (const [name, shape] of tensors) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + bytes] };
    off += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);  // data starts 8-byte aligned, as safetensors writers do
  const out = new Uint8Array(8 + json.length + off);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  const next = splitmix64(seed);
  const base = 8 + json.length;
  for (let i = 0; i < off / 4; i++) dv.setFloat32(base + 4 * i, uniform(next, -0.1, 0.1), true);
  return out;
}

// ---- timing helpers -----------------------------------------------------------------------------
const median = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const cpuMicros = () => { const u = process.cpuUsage(); return u.user + u.system; };

// 64 forced ids (never EOS = 2, never below 4) from a fixed pseudo-random sequence.
const nextId = splitmix64(7);
const FORCE = Array.from({ length: BATCH }, () => 4 + Number(nextId() % BigInt(V - 4)));

// The binding's step call alone, without the wrapper: it fills the step record in wasm memory,
// which is left unread here.
const bareName = '_h.stepInto(id, 5)';
const bareStep = (h, id) => h.stepInto(id, 5);

// One repetition of the API step: `batches` runs of 64 forced steps, each on a fresh decoder made
// outside the timed interval. Returns [wall µs per step, cpu µs per step].
function apiRep(model, enc, decOpts, batches, bare) {
  let wall = 0, cpu = 0;
  for (let b = 0; b < batches; b++) {
    const dec = model.decoder(enc, decOpts);
    const h = dec._h;  // resolved outside the timing (the getter checks for dispose)
    let sink = 0;
    const c0 = cpuMicros(), t0 = performance.now();
    if (bare) for (let i = 0; i < BATCH; i++) sink += bareStep(h, FORCE[i]);
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
  const us = dec._h.rawStepMicros(n);
  return [us, (cpuMicros() - c0) / n];
}
// One measurement of one H: repetitions until `budget` seconds of timed work (at least 9). Each
// repetition runs every row once, back to back, in an order that rotates, so a burst of load from
// other processes hits the rows alike; per row the per-step medians over repetitions, and per row the
// median of the per-repetition ratio row/raw (the paired ratio, the figure least moved by load).
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
  WHAT.forEach(([what], i) => {
    const w = reps[i].wall;
    out[what] = {
      us: median(w), min: Math.min(...w), max: Math.max(...w), cpu: median(reps[i].cpu), reps: w.length,
      ratio: median(w.map((x, k) => x / reps[0].wall[k])), cpuRatio: median(reps[i].cpu.map((x, k) => x / reps[0].cpu[k])),
    };
  });
  return out;
}

// ---- setup --------------------------------------------------------------------------------------
const nextSrc = splitmix64(11);
const SRC = Array.from({ length: T }, () => 4 + Number(nextSrc() % BigInt(V - 4)));
const setups = [];
for (const H of opt.H) {
  const bytes = referenceModel(H, 0x5eed0000 + H);
  const model = await loadModel(bytes);
  if (model.config.hidden !== H || model.config.tokenizer !== 'ids') throw new Error(`unexpected config at H=${H}`);
  const enc = model.encode(SRC);
  const rawDec = model.decoder(enc, { maxLength: 1000 });  // only its handle's rawStepMicros is used
  setups.push({ H, model, enc, rawDec, bytes: bytes.length });
}

const WHAT = [
  ['raw', (s) => rawRep(s.rawDec, 3 * BATCH)],
  ['js_step', (s) => apiRep(s.model, s.enc, { maxLength: 1000 }, 3, false)],
  ['js_step_topk0', (s) => apiRep(s.model, s.enc, { maxLength: 1000, topk: 0 }, 3, false)],
  ['embind_step', (s) => apiRep(s.model, s.enc, { maxLength: 1000 }, 3, true)],
];

console.log(`== ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC  node ${process.version}  ${await buildInfo()}  nproc=${os.cpus().length}  ${os.cpus()[0]?.model ?? ''}`);
console.log(`== load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (start)`);
console.log(`== models: ${setups.map((s) => `H=${s.H} ${(s.bytes / 1e6).toFixed(1)} MB`).join(', ')}; source ${T} ids; ${opt.rounds} rounds, ${opt.budget} s per row per round`);

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
      console.log(`round=${r} H=${s.H} what=${what} us=${x.us.toFixed(2)} min=${x.min.toFixed(2)} max=${x.max.toFixed(2)} cpu_us=${x.cpu.toFixed(2)} reps=${x.reps} ratio=${x.ratio.toFixed(3)} cpu_ratio=${x.cpuRatio.toFixed(3)}`);
    }
  }
}
console.log(`== load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (end)`);

// Per row: the lowest of the rounds' medians (other processes only ever add time), and the median
// over rounds of the paired ratio to the raw step (each round's median of per-repetition ratios).
const best = (H, w, key = 'us') => Math.min(...res[H].map((m) => m[w][key]));
const ratio = (H, w, key = 'ratio') => median(res[H].map((m) => m[w][key]));
const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
console.log('');
for (const s of setups) {
  const H = s.H;
  for (const [what] of WHAT.slice(1)) {
    console.log(`RESULT build=wasm-simd-js H=${H} what=${what} us=${best(H, what).toFixed(2)} raw_us=${best(H, 'raw').toFixed(2)} ratio=${ratio(H, what).toFixed(3)} cpu_us=${best(H, what, 'cpu').toFixed(2)} raw_cpu_us=${best(H, 'raw', 'cpu').toFixed(2)} cpu_ratio=${ratio(H, what, 'cpuRatio').toFixed(3)} ort_us=${ORT_STEP[H] ?? '-'}`);
  }
}
const mainTable = (key, title) => {
  console.log(`\n### ${title}\n`);
  console.log('| H | raw step (same module) | dec.step() | ratio | ORT-web (58/94/225) | beats ORT |');
  console.log('|---|---|---|---|---|---|');
  for (const s of setups) {
    const H = s.H, raw = best(H, 'raw', key), api = best(H, 'js_step', key), ort = ORT_STEP[H];
    const r = ratio(H, 'js_step', key === 'us' ? 'ratio' : 'cpuRatio');
    console.log(`| ${H} | ${f(raw)} | ${f(api)} | ${r.toFixed(2)}x | ${ort ?? '-'} | ${ort ? (api < ort ? 'yes' : 'NO') : '-'} |`);
  }
};
mainTable('us', "dec.step() through the public JS API vs the engine's raw step (same module, same run), wall clock, µs per step");
mainTable('cpu', 'Same, CPU time (process.cpuUsage(); leaves out time the scheduler gave to other processes), µs per step');
console.log('\n### Breakdown, µs per step, wall clock (paired ratio to raw) and CPU time (paired ratio)\n');
console.log(`| H | raw | Embind \`${bareName}\`, no wrapper |`+' dec.step() topk 0 | dec.step() (topk 5) | dec.step() − raw | raw CPU | dec.step() CPU |');
console.log('|---|---|---|---|---|---|---|---|');
for (const s of setups) {
  const H = s.H, raw = best(H, 'raw');
  const cell = (w) => `${f(best(H, w))} (${ratio(H, w).toFixed(2)}x)`;
  console.log(`| ${H} | ${f(raw)} | ${cell('embind_step')} | ${cell('js_step_topk0')} | ${cell('js_step')} | ${f(best(H, 'js_step') - raw)} | ${f(best(H, 'raw', 'cpu'))} | ${f(best(H, 'js_step', 'cpu'))} (${ratio(H, 'js_step', 'cpuRatio').toFixed(2)}x) |`);
}
for (const s of setups) { s.rawDec.dispose(); s.enc.dispose(); s.model.dispose(); }
