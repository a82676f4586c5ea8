// The relaxed-SIMD products against the plain ones, side by side in one Chromium page (issue 29): two
// module Workers (bench/pages/relaxed-worker.js), each with its own engine, one initialised with the
// relaxed products and one with init({ relaxedSimd: false }), timed in turn, round by round, on:
//   - the raw decoder step (C++ loop) of the bench's reference model (bench/reference_model.mjs,
//     V 1000, source 32) at each H, 1 row and 4 rows (a beam's), f32 and int8;
//   - g2p-en, greedy: 500 CMUdict test words one translate() at a time, and in one translateBatch();
//   - training as the page's panel trains (web/train/tasks.js: the dates task, batches of 32, embedding
//     min(H, 32)) at each --train-H: milliseconds per step.
// Prints every measurement as a RESULT line, then a table: the best round of each side, the ratios
// the issue names (4 rows / 1 row, batch / loop, int8 / f32) and relaxed / plain. It measures; it
// never fails on time. Needs dist/ (bash scripts/build.sh) and Chromium (scripts/setup.sh).
//   node bench/relaxed.mjs [--rounds N] [--budget SECONDS] [--H 256,512] [--train-H 64,256]
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createServer } from '../scripts/serve.mjs';
import { launch } from '../tests/browser/helpers.mjs';

const args = process.argv.slice(2);
const opt = { rounds: 3, budget: 0.5, H: [256, 512], trainH: [64, 256] };
for (let i = 0; i < args.length; i += 2) {
  if (args[i] === '--rounds') opt.rounds = Number(args[i + 1]);
  else if (args[i] === '--budget') opt.budget = Number(args[i + 1]);
  else if (args[i] === '--H') opt.H = args[i + 1].split(',').map(Number);
  else if (args[i] === '--train-H') opt.trainH = args[i + 1].split(',').map(Number);
  else {
    console.error('usage: node bench/relaxed.mjs [--rounds N] [--budget SECONDS] [--H 256,512] [--train-H 64,256]');
    process.exit(2);
  }
}
const words = readFileSync(new URL('../data/cmudict/g014b2b.ref', import.meta.url), 'utf8').split('\n')
  .filter(Boolean).filter((_, i) => i % 24 === 0).map((l) => l.split('\t')[0].toLowerCase());

const server = createServer({ allow: ['bench'] });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launch();
try {
  const page = await browser.ctx.newPage();
  await page.goto(`${base}/bench/pages/relaxed.html`);
  console.log(`date: ${new Date().toISOString().slice(0, 16)} UTC; Chromium ${browser.ctx.browser()?.version() ?? ''}`);
  console.log(`load average at the start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const results = await page.evaluate(async ({ opt, words }) => {
    const side = (relaxed) => {
      const w = new globalThis.Worker('/bench/pages/relaxed-worker.js', { type: 'module' });
      let next = 0;
      const waiting = new Map();
      w.onmessage = ({ data }) => { const p = waiting.get(data.id); waiting.delete(data.id); data.error ? p.reject(new Error(data.error)) : p.resolve(data.result); };
      return { relaxed, ask: (job, args) => new Promise((resolve, reject) => { waiting.set(++next, { resolve, reject }); w.postMessage({ id: next, job, args }); }) };
    };
    const sides = [side(true), side(false)];
    const info = {};
    for (const s of sides) info[s.relaxed ? 'relaxed' : 'plain'] = await s.ask('init', { relaxed: s.relaxed, H: opt.H, words });
    const lines = [];
    for (let r = 1; r <= opt.rounds; r++)
      for (const s of sides) {
        const name = s.relaxed ? 'relaxed' : 'plain';
        for (const H of opt.H)
          for (const int8 of [false, true])
            for (const rows of [1, 4]) {
              const { us } = await s.ask('step', { H, rows, int8, budget: opt.budget });
              lines.push({ side: name, round: r, what: `step_H${H}_${int8 ? 'int8' : 'f32'}_rows${rows}`, unit: 'us', v: us });
            }
        const g = await s.ask('g2p', { budget: opt.budget });
        lines.push({ side: name, round: r, what: `g2p_loop_${words.length}`, unit: 'ms', v: g.loop });
        lines.push({ side: name, round: r, what: `g2p_batch_${words.length}`, unit: 'ms', v: g.batch });
        for (const hidden of opt.trainH) {
          const { ms } = await s.ask('train', { hidden, budget: opt.budget });
          lines.push({ side: name, round: r, what: `train_dates_H${hidden}`, unit: 'ms/step', v: ms });
        }
      }
    return { info, lines };
  }, { opt, words });
  console.log(`relaxed side: ${results.info.relaxed}\nplain side: ${results.info.plain}`);
  const best = {};
  for (const l of results.lines) {
    console.log(`RESULT side=${l.side} round=${l.round} what=${l.what} ${l.unit}=${l.v.toFixed(3)}`);
    const k = `${l.side} ${l.what}`;
    best[k] = Math.min(best[k] ?? Infinity, l.v);
  }
  console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const whats = [...new Set(results.lines.map((l) => l.what))];
  console.log('\n| measurement | plain | relaxed | relaxed / plain |\n|---|---|---|---|');
  for (const w of whats) {
    const p = best[`plain ${w}`], x = best[`relaxed ${w}`];
    console.log(`| ${w} (${results.lines.find((l) => l.what === w).unit}) | ${p.toFixed(2)} | ${x.toFixed(2)} | ${(x / p).toFixed(3)} |`);
  }
  console.log('\n| ratio | plain | relaxed |\n|---|---|---|');
  const ratio = (label, a, b) => console.log(`| ${label} | ${(best[`plain ${a}`] / best[`plain ${b}`]).toFixed(2)} | ${(best[`relaxed ${a}`] / best[`relaxed ${b}`]).toFixed(2)} |`);
  for (const H of opt.H) {
    ratio(`step H ${H}: 4 rows / 1 row (f32)`, `step_H${H}_f32_rows4`, `step_H${H}_f32_rows1`);
    ratio(`step H ${H}: int8 / f32 (1 row)`, `step_H${H}_int8_rows1`, `step_H${H}_f32_rows1`);
  }
  ratio(`g2p-en greedy: loop of translate() / translateBatch()`, `g2p_loop_${words.length}`, `g2p_batch_${words.length}`);
  for (const h of opt.trainH)
    console.log(`| training, dates, H ${h}: plain / relaxed time per step | ${(best[`plain train_dates_H${h}`] / best[`relaxed train_dates_H${h}`]).toFixed(2)} | |`);
} finally {
  await browser.close();
  server.close();
}
