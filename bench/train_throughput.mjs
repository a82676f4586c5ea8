// Training throughput (target tokens per second) for the shipped dates model's configuration
// (GRU, luong, dot, H 64, E 32, batch 64), natively (the attnseq CLI) and in WebAssembly (the npm
// package's createTrainer under Node), alternating in one run. It measures; it never fails on time.
//   node bench/train_throughput.mjs [--steps 150] [--rounds 3]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTrainer } from '../wasm/attnseq.js';

const arg = (k, d) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const steps = arg('--steps', 150), rounds = arg('--rounds', 3);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'attnseq-tt-'));
const rows = [];
for (let r = 0; r < rounds; r++) {
  const out = execFileSync('build/native/attnseq', ['train', '--task', 'dates', '--hidden', '64', '--embedding', '32',
    '--steps', String(steps), '--batch', '64', '--lr', '0.005', '--seed', String(1 + r), '--quiet', '--out',
    path.join(tmp, 'd.safetensors')], { encoding: 'utf8' });
  const native = Number(/\(([\d.]+) target tokens\/s\)/.exec(out)[1]);
  const t = await createTrainer({ task: 'dates', model: { hidden: 64, embedding: 32 }, batchSize: 64, lr: 0.005,
    steps, seed: 1 + r });
  t.step(5);  // warm-up (V8 tier-up)
  const rep = t.step(steps);
  t.dispose();
  rows.push({ native, wasm: rep.tokensPerSecond });
  console.log(`RESULT round=${r + 1} what=train_dates native_tok_s=${native.toFixed(0)} wasm_tok_s=${rep.tokensPerSecond.toFixed(0)}`);
}
rmSync(tmp, { recursive: true, force: true });
const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
const n = med(rows.map((x) => x.native)), w = med(rows.map((x) => x.wasm));
console.log(`\n| model | native tok/s | wasm SIMD tok/s (Node) | native/wasm |\n|---|---|---|---|\n| dates (H 64, E 32, batch 64) | ${n.toFixed(0)} | ${w.toFixed(0)} | ${(n / w).toFixed(2)}x |`);
