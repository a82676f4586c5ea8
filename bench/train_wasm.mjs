// One wasm SIMD training measurement for bench/train.sh: the npm package's createTrainer under Node on
// a TSV file, after a few warm-up steps (V8 tier-up). Prints one RESULT line.
//   node bench/train_wasm.mjs FILE.tsv SRC_TOK TGT_TOK STEPS BATCH HIDDEN EMBEDDING [flags: bidirectional,bridge,inputFeeding] [score]
import { readFileSync } from 'node:fs';
import { createTrainer } from '../wasm/attnseq.js';

const [file, srcTokenizer, tgtTokenizer, steps, batch, hidden, embedding, flags = '', score = 'dot'] = process.argv.slice(2);
const on = new Set(flags.split(',').filter(Boolean));
const t = await createTrainer({
  task: { tsv: readFileSync(file, 'utf8'), srcTokenizer, tgtTokenizer },
  model: { hidden: Number(hidden), embedding: Number(embedding), score, bidirectional: on.has('bidirectional'),
    bridge: on.has('bridge'), inputFeeding: on.has('inputFeeding') },
  batchSize: Number(batch), steps: Number(steps) + 3, warmup: 4, seed: 1,
});
t.step(3);
const rep = t.step(Number(steps));
t.dispose();
console.log(`RESULT trainer=wasm tok_s=${rep.tokensPerSecond.toFixed(0)}`);
