// Batch translation through the npm package: words per second of a loop of model.translate() against
// one model.translateBatch() over the same words, and against pool.translateBatch() on --workers
// Workers (createPool; default every core), on g2p-en (the English pronunciation model) and the
// first column of data/cmudict/g014b2b.ref, greedy and beam 5. A benchmark, not a test: it measures,
// prints, and never fails on time (it does fail if they ever give different results).
//
//   node bench/batch.mjs [--rounds N] [--words N] [--beams 1,5] [--max-rows R] [--workers W]
//
// Every round runs, for each beam, the loop (A), the batch (B) and the pool (P), in the order A B P in
// odd rounds and P B A in even ones, so that a burst of load from other processes falls on all alike. A row,
// "binding", is the batch's one call into the engine alone (wasm/bindings.cpp, translate_batch_js:
// tokenizing, decoding, the flat result arrays) without building translate()'s objects in
// JavaScript: batch - binding is the JavaScript side's share. Wall clock and CPU time
// (process.cpuUsage, which counts the Workers' threads too) per run; the ratios are medians over
// rounds of loop / batch and loop / pool in the same round.
// `uptime` before and after: on a shared machine say how loaded it was. Needs dist/ (scripts/build.sh).
import { loadModel, createPool, buildInfo } from '../wasm/attnseq.js';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import os from 'node:os';

const args = process.argv.slice(2);
const opt = { rounds: 4, words: 2000, beams: [1, 5], maxRows: 256, workers: Math.min(64, os.availableParallelism?.() ?? os.cpus().length) };
for (let i = 0; i < args.length; i++) {
  const [k, v0] = args[i].split('=');
  const v = v0 ?? args[++i];
  if (k === '--rounds') opt.rounds = Number(v);
  else if (k === '--words') opt.words = Number(v);
  else if (k === '--beams') opt.beams = v.split(',').map(Number);
  else if (k === '--max-rows') opt.maxRows = Number(v);
  else if (k === '--workers') opt.workers = Number(v);
  else {
    console.error('usage: node bench/batch.mjs [--rounds N] [--words N] [--beams 1,5] [--max-rows R] [--workers W]');
    process.exit(2);
  }
}

const uptime = () => {
  const r = spawnSync('uptime', { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : `load average: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`;
};
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const ROOT = new URL('../', import.meta.url);
const words = readFileSync(new URL('data/cmudict/g014b2b.ref', ROOT), 'utf8').split('\n').filter(Boolean)
  .map((l) => l.split('\t')[0]).slice(0, opt.words);
const model = await loadModel(new URL('models/g2p-en.safetensors', ROOT));
const pool = await createPool(new URL('models/g2p-en.safetensors', ROOT), { workers: opt.workers });
const letters = words.reduce((n, w) => n + w.length, 0);

console.log(`# bench/batch.mjs: g2p-en, ${words.length} words (${(letters / words.length).toFixed(2)} letters on average), ` +
  `maxRows ${opt.maxRows}, ${opt.workers} Workers, ${opt.rounds} rounds, ${await buildInfo()}, Node ${process.version}, ${os.cpus()[0]?.model ?? '?'} x ${os.cpus().length}`);
console.log(`# before: ${uptime()}`);

// The same results, or the figures mean nothing.
for (const beam of opt.beams) {
  const a = words.map((w) => model.translate(w, { beam }));
  const b = model.translateBatch(words, { beam, maxRows: opt.maxRows });
  if (!isDeepStrictEqual(a, b)) throw new Error(`beam ${beam}: translateBatch differs from the translate() loop`);
  if (!isDeepStrictEqual(await pool.translateBatch(words, { beam, maxRows: opt.maxRows }), b)) throw new Error(`beam ${beam}: the pool differs from translateBatch`);
}

const variants = {
  loop: (beam) => { for (const w of words) model.translate(w, { beam }); },
  batch: (beam) => { model.translateBatch(words, { beam, maxRows: opt.maxRows }); },
  pool: (beam) => pool.translateBatch(words, { beam, maxRows: opt.maxRows }),
  binding: (beam) => {
    const r = model._M.translateBatch(model._h, words, { beam }, opt.maxRows);
    if (!r.ok) throw new Error(r.message);
  },
};
async function time(fn) {
  const c0 = process.cpuUsage(), t0 = performance.now();
  await fn();
  const wall = performance.now() - t0, c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

const runs = {};  // `${beam} ${variant}` -> [{ wall, cpu }]
for (let round = 1; round <= opt.rounds; round++) {
  for (const beam of opt.beams) {
    const order = round % 2 ? ['loop', 'batch', 'binding', 'pool'] : ['pool', 'binding', 'batch', 'loop'];
    for (const v of order) {
      const t = await time(() => variants[v](beam));
      (runs[`${beam} ${v}`] ??= []).push(t);
      console.log(`RUN round=${round} beam=${beam} what=${v} wall_ms=${t.wall.toFixed(0)} cpu_ms=${t.cpu.toFixed(0)} ` +
        `words_per_s=${(words.length / t.wall * 1000).toFixed(0)}`);
    }
  }
}
console.log(`# after: ${uptime()}`);

const wps = (ms) => (words.length / ms * 1000).toFixed(0);
console.log(`\n| beam | translate() loop, words/s | translateBatch(), words/s | batch / loop (paired median) | binding only, words/s | JS share of the batch | pool of ${opt.workers}, words/s | pool / loop (paired median) |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const beam of opt.beams) {
  const L = runs[`${beam} loop`], B = runs[`${beam} batch`], E = runs[`${beam} binding`], P = runs[`${beam} pool`];
  const ratios = L.map((l, i) => l.wall / B[i].wall), cpuRatios = L.map((l, i) => l.cpu / B[i].cpu);
  const poolRatios = L.map((l, i) => l.wall / P[i].wall);
  const jsShare = B.map((b, i) => 1 - E[i].wall / b.wall);
  console.log(`| ${beam} | ${wps(median(L.map((x) => x.wall)))} (cpu ${wps(median(L.map((x) => x.cpu)))}) ` +
    `| ${wps(median(B.map((x) => x.wall)))} (cpu ${wps(median(B.map((x) => x.cpu)))}) ` +
    `| ${median(ratios).toFixed(2)}x (cpu ${median(cpuRatios).toFixed(2)}x; rounds ${ratios.map((r) => r.toFixed(2)).join(' ')}) ` +
    `| ${wps(median(E.map((x) => x.wall)))} | ${(100 * median(jsShare)).toFixed(1)} % ` +
    `| ${wps(median(P.map((x) => x.wall)))} | ${median(poolRatios).toFixed(2)}x (rounds ${poolRatios.map((r) => r.toFixed(2)).join(' ')}) |`);
}
model.dispose();
pool.dispose();
