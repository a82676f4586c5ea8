// Words per second of the SIGMORPHON languages' shipped models through the npm package: each
// language's ensemble (models/index.json) and its first model alone, greedy and at beam 5, in a loop of
// translate() and in one translateBatch(), over the first --words words of the language's dev file. A
// benchmark, not a test: it prints and never fails on time. `uptime` before and after.
//   node bench/sigmorphon_speed.mjs [--words N] [--langs g2p-ko,g2p-ady]     (needs dist/: scripts/build.sh)
import { loadModel, createEnsemble } from '../wasm/attnseq.js';
import { readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const N = Number(arg('--words', '200'));
const only = arg('--langs', '').split(',').filter(Boolean);
const index = JSON.parse(readFileSync('models/index.json', 'utf8')).models.filter((m) => m.files?.[0]?.startsWith('g2p/') && (!only.length || only.includes(m.id)));
const shipText = readFileSync('tools/ship_sigmorphon.mjs', 'utf8');
const stemOf = (code) => new RegExp(`\\['([a-z_]+)', '${code}'`).exec(shipText)[1];
const devFile = (stem) => ['high', 'medium', 'low'].map((s) => `data/sigmorphon2021-g2p/${s}/${stem}_dev.tsv`).find(existsSync);

const time = (f) => { const t = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t) / 1e9; };
console.log(`uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
console.log(`${N} dev words per language; words/s, the better of 2 runs\n`);
console.log('| id | models | greedy loop | greedy batch | beam 5 loop | beam 5 batch | one model: greedy batch | one model: beam 5 batch |');
console.log('|---|---|---|---|---|---|---|---|');
for (const m of index) {
  const words = readFileSync(devFile(stemOf(m.language)), 'utf8').split('\n').filter(Boolean).slice(0, N).map((l) => l.split('\t')[0]);
  const models = await Promise.all(m.files.map((f) => loadModel(`models/${f}`)));
  const ens = createEnsemble(models);
  const rate = (f) => { f(); return Math.round(words.length / Math.min(time(f), time(f))); };
  const cells = [
    rate(() => { for (const w of words) ens.translate(w); }),
    rate(() => ens.translateBatch(words)),
    rate(() => { for (const w of words) ens.translate(w, { beam: 5 }); }),
    rate(() => ens.translateBatch(words, { beam: 5 })),
    rate(() => models[0].translateBatch(words)),
    rate(() => models[0].translateBatch(words, { beam: 5 })),
  ];
  console.log(`| \`${m.id}\` | ${m.files.length} | ${cells.join(' | ')} |`);
  ens.dispose();
}
console.log(`\nuptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
