// A TypeScript user of the published package: every public export used the way the README shows,
// type-checked against the hand-written wasm/index.d.ts (strict, no skipLibCheck). The
// `@ts-expect-error` lines are calls the types must refuse. tests/js/types.test.mjs installs the
// npm pack tarball next to this file, type-checks it, then compiles and runs it against a checkpoint
// copied beside the output (./model.safetensors: gru_luong_general, a word model with w4..w12).
import {
  AttnseqError, Ensemble, EnsembleDecoder, Model, Pool, alignmentToCSV, alignmentToJSON, alignmentToPharaoh, buildInfo, createEnsemble, createPool,
  createTrainer, init, loadModel, memoryStats,
} from 'attnseq';
import type {
  AlignmentLike, AttnseqErrorCode, Decoder, DecoderOptions, Encoded, EnsembleStepResult, Hypothesis, MemberStep, Input, LoadOptions, ModelConfig,
  ModelSource, PoolOptions, StepOptions, StepResult, TrainEvaluation, Trainer, TrainerOptions, TrainStepReport,
  TranslateBatchOptions, TranslateOptions, TranslateStreamOptions, Translation, WordView,
} from 'attnseq';

function check(cond: boolean, what: string): asserts cond {
  if (!cond) throw new Error(`consumer check failed: ${what}`);
}

// init() before the first load: where the .wasm lives (here: where it is anyway).
const pkgEntry = import.meta.resolve('attnseq');
await init({ locateFile: (file: string) => new URL(`../dist/${file}`, pkgEntry).href });

const model: Model = await loadModel(new URL('./model.safetensors', import.meta.url));

// Config fields are typed unions / numbers / strings.
const config: ModelConfig = model.config;
const cell: 'gru' | 'lstm' = config.cell;
const style: 'luong' | 'bahdanau' | 'none' = config.style;
const sizes: number[] = [config.srcVocabSize, config.tgtVocabSize, config.hidden, config.layers, config.parameters];
const tokenizer: 'char' | 'word' | 'spm' | 'ids' | 'mixed' = config.tokenizer;
const sides: Array<'char' | 'word' | 'spm' | 'ids'> = [config.srcTokenizer, config.tgtTokenizer];
const srcCase: 'keep' | 'upper' | 'lower' = config.srcCase;
const description: string | undefined = config.metadata['description'];
const name: string | null = config.name;
check(cell === 'gru' && style === 'luong' && config.score === 'general', 'config');
check(sizes.every((n) => Number.isInteger(n) && n > 0) && tokenizer === 'word', 'sizes');
check(sides.every((k) => k === 'word') && srcCase === 'keep', 'per-side tokenizers');
check(typeof description === 'string' && name === 'gru_luong_general', 'metadata');
check(model.srcVocab !== null && model.srcVocab.length === config.srcVocabSize, 'srcVocab');
const specials: number[] = [config.pad, config.bos, config.eos, config.unk];
check(specials.join() === '0,1,2,3', 'special ids');

// The same checkpoint held as int8.
const loadOptions: LoadOptions = { quantize: 'int8' };
const int8: Model = await loadModel(new URL('./model.safetensors', import.meta.url), loadOptions);
const quantization: 'none' | 'int8' = int8.config.quantization;
check(quantization === 'int8' && config.quantization === 'none', 'quantization');
int8.dispose();

// tokenize / encode / memory.
const { ids, tokens } = model.tokenize('w5 w6 w7', 'source');
check(ids instanceof Int32Array && tokens.join(' ') === 'w5 w6 w7', 'tokenize');
const source: Input = 'w5 w6 w7 w8 w4';
const enc: Encoded = model.encode(source);
const mem = enc.memory();
check(mem.rows === enc.length && mem.cols === config.encoderOutput && mem.data.length === mem.rows * mem.cols, 'memory');
check(mem.finalState instanceof Float32Array && enc.model === model, 'memory extras');

// Step-by-step decoding with options; every StepResult field has its type.
const decOptions: DecoderOptions = { maxLength: 6, topk: 3, prefix: 'w7' };
const dec: Decoder = model.decoder(enc, decOptions);
const steps: StepResult[] = [];
while (!dec.done) {
  const opts: StepOptions = steps.length === 1 ? { force: 'w9' } : steps.length === 2 ? { force: 4 } : {};
  const s = dec.step(opts);
  const weights: Float32Array = s.attention;
  const top: { token: number; text: string; p: number }[] = s.topk;
  check(weights.length === enc.length && s.scores.length === enc.length && top.length === 3, 'step shapes');
  check(s.query.length === config.hidden && s.context.length === config.encoderOutput, 'step vectors');
  check(s.logits.length === config.tgtVocabSize && typeof s.logProb === 'number', 'logits');
  steps.push(s);
}
check(steps[0]!.forced && steps[0]!.text === 'w7' && steps[1]!.token === 9 && steps[2]!.token === 4, 'forced steps');
check(dec.length === steps.length && steps.length <= dec.maxLength && dec.encoded === enc, 'decoder state');
const overridden = model.decoder(enc).step({ attention: [0, 0, 1, 0, 0] });
check(overridden.attention[2] === 1, 'attention override');

// translate with options, hypotheses, the alignment helpers.
const options: TranslateOptions = { beam: 3, maxLength: 8, lengthPenalty: 0.5, numHypotheses: 2, replaceUnknowns: true };
const t: Translation = model.translate(enc, options);
const hyps: Hypothesis[] = t.hypotheses;
check(hyps.length === 2 && t.tokens.join() === hyps[0]!.tokens.join(), 'hypotheses');
check(t.attention.length === t.rows * t.cols && t.cols === enc.length, 'attention shape');
for (const h of hyps) check(h.attention.length === h.tokens.length * t.cols && typeof h.finished === 'boolean', 'hypothesis');
// A word-level model has words (WordView); this word-level test model has none.
const words: WordView | null = t.words;
check(words === null, 'no word view for a word-level model');
const wordCells = (w: WordView): number => (w.attention ? w.attention.length : 0) + w.rows * w.cols + w.sourceSpans.length;
void wordCells;
const sampled = model.translate([5, 6, 7], { temperature: 0.8, seed: 42, maxLength: 5 });
check(sampled.srcTokens.join(' ') === 'w5 w6 w7', 'ids input');
// Many inputs in one call: each result is translate()'s for that input.
const batchOptions: TranslateBatchOptions = { beam: 2, maxRows: 8 };
const batch: Translation[] = model.translateBatch(['w5 w6 w7', [5, 6], enc], batchOptions);
check(batch.length === 3 && batch[0]!.text === model.translate('w5 w6 w7', { beam: 2 }).text, 'translateBatch');
check(batch[2]!.srcTokens.join(' ') === enc.tokens.join(' ') && model.translateBatch([]).length === 0, 'translateBatch inputs');
// An ensemble (here a model with itself): translate()'s objects, with each member's attention.
const ensemble: Ensemble = createEnsemble([model, model]);
const together: Translation = ensemble.translate('w5 w6 w7', { beam: 2 });
const members: Float32Array[] | undefined = together.memberAttention;
check(together.text === model.translate('w5 w6 w7', { beam: 2 }).text && members?.length === 2 && ensemble.size === 2, 'ensemble');
check(ensemble.translateBatch(['w5', [5, 6]]).length === 2 && ensemble.config.hidden === model.config.hidden, 'ensemble batch');
// Its step-by-step decoder: the mean attention, each member's own numbers.
const edec: EnsembleDecoder = ensemble.decoder('w5 w6 w7', { topk: 3 });
const estep: EnsembleStepResult = edec.step();
const own: MemberStep | undefined = estep.members[1];
check(estep.attention.length === edec.encoded[0]!.length && own?.query.length === model.config.hidden && estep.topk.length === 3, 'ensemble decoder');
// A what-if: every member attends with the row, so their mean is the row.
const ewhatif: EnsembleStepResult = edec.step({ attention: [0, 1, 0] });
check(ewhatif.attention[1] === 1 && ewhatif.members[0]!.attention[1] === 1, 'ensemble what-if');
const etext: string = ensemble.detokenize(ensemble.tokenize('w5 w6', 'target').ids);
check(typeof etext === 'string', 'ensemble detokenize');
edec.dispose();
check((() => {
  try {
    // @ts-expect-error an ensemble takes text or ids, not an Encoded (refused at run time too)
    ensemble.translate(enc);
  } catch (e) {
    return e instanceof AttnseqError && e.code === 'BAD_INPUT';
  }
  return false;
})(), 'an Encoded given to an ensemble');
// The same on Workers (texts and ids only); a refused entry's index is on the error.
const poolOptions: PoolOptions = { workers: 2 };
{
  using pool: Pool = await createPool(new URL('./model.safetensors', import.meta.url), poolOptions);
  const pooled: Translation[] = await pool.translateBatch(['w5 w6 w7', [5, 6]], batchOptions);
  check(pool.workers === 2 && pooled[0]!.text === batch[0]!.text && pooled[1]!.text === batch[1]!.text, 'pool');
  try {
    await pool.translateBatch(['w5', [999]]);
    check(false, 'a bad entry rejects');
  } catch (e: unknown) {
    check(e instanceof AttnseqError && e.code === 'BAD_INPUT' && e.index === 1, 'the pool names the bad entry');
  }
  // @ts-expect-error an Encoded stays with its model's thread
  await pool.translateBatch([enc]).catch((e: unknown) => check(e instanceof AttnseqError && e.index === 0, 'the Encoded is refused at run time too'));
}
// As a stream: results as they come, a window at a time.
const streamOptions: TranslateStreamOptions = { beam: 2, window: 1 };
const streamed: Translation[] = [];
for await (const r of model.translateStream((function* () { yield 'w5 w6 w7'; yield [5, 6]; })(), streamOptions)) streamed.push(r);
check(streamed.length === 2 && streamed[0]!.text === batch[0]!.text, 'translateStream');
{
  using fromModel: Pool = await createPool(model, poolOptions);  // a loaded Model is a source too
  for await (const r of fromModel.translateStream(['w5 w6 w7'], streamOptions)) check(r.text === batch[0]!.text, 'pool.translateStream');
  check((await fromModel.translateBatch(['w5 w6 w7']))[0]!.text === model.translate('w5 w6 w7').text, 'createPool(model)');
}
const forHyp: AlignmentLike = { ...t, tgtTokens: hyps[1]!.tgtTokens, attention: hyps[1]!.attention, rows: hyps[1]!.tokens.length };
const csv: string = alignmentToCSV(t);
const json = JSON.parse(alignmentToJSON(forHyp)) as { attention: number[][] };
const pharaoh: string = alignmentToPharaoh(t);
check(csv.startsWith(',w5,w6,w7,w8,w4\n') && json.attention.length === forHyp.rows, 'csv/json');
check(pharaoh.split(' ').length === t.rows, 'pharaoh');

// Errors: AttnseqError with a code union that narrows.
function codeOf(f: () => unknown): AttnseqErrorCode | null {
  try {
    f();
    return null;
  } catch (e: unknown) {
    if (!(e instanceof AttnseqError)) throw e;
    const err: Error = e;
    check(err.name === 'AttnseqError' && err.message.length > 0, 'error shape');
    switch (e.code) {
      case 'BAD_INPUT': case 'TOO_LONG': case 'DISPOSED': return e.code;
      case 'BAD_CHECKPOINT': case 'LOAD_FAILED': case 'NOT_LOADED': case 'NOT_ENCODED':
      case 'OUT_OF_MEMORY': case 'ALREADY_INITIALISED': case 'INTERNAL': case 'WORKER': return e.code;
      default: {
        const unreachable: never = e.code;
        return unreachable;
      }
    }
  }
}
check(codeOf(() => model.translate('')) === 'BAD_INPUT', 'BAD_INPUT');
check(codeOf(() => model.translate('w5 '.repeat(2000))) === 'TOO_LONG', 'TOO_LONG');
check(new AttnseqError('INTERNAL', 'x').code === 'INTERNAL', 'constructor');

// Explicit disposal, and `using` (Symbol.dispose).
dec.dispose();
check(dec.disposed && codeOf(() => dec.step()) === 'DISPOSED', 'disposed decoder');
let escaped: Encoded | undefined;
{
  using scoped = model.encode('w5 w6');
  check(!scoped.disposed, 'using: live');
  escaped = scoped;
}
check(escaped.disposed, 'using: disposed at block end');
enc[Symbol.dispose]();

// Training in the engine: a tiny TSV task, two steps, evaluate, save, load the result.
const trainerOptions: TrainerOptions = {
  task: { tsv: 'a b\tx y\nc\tz\n', tokenizer: 'word', tgtTokenizer: 'char' },
  model: { cell: 'lstm', style: 'bahdanau', score: 'additive', hidden: 8, embedding: 4 },
  steps: 4, lr: 0.01, seed: 1,
};
const trainer: Trainer = await createTrainer(trainerOptions);
const report: TrainStepReport = trainer.step(2);
const evaluation: TrainEvaluation = trainer.evaluate(2, 1);
check(report.step === 2 && report.loss > 0 && trainer.parameters > 0, 'train step');
check(evaluation.n === 2 && evaluation.exactMatch >= 0 && evaluation.exactMatch <= 1, 'evaluate');
const saved: Uint8Array = trainer.save();
check(saved.length > 8 && trainer.saveState().length > 0, 'save');
{
  using trained = await trainer.model();
  check(trained.config.cell === 'lstm' && trained.translate('a b', { maxLength: 3 }).tokens.length > 0, 'trained model');
}
trainer.dispose();

const stats = await memoryStats();
check(stats.heapBytes > 0 && stats.memoryBytes >= stats.heapBytes, 'memoryStats');
const build: string = await buildInfo();
check(build.length > 0, 'buildInfo');
model.dispose();
check(model.disposed, 'model disposed');
console.log(`consumer ok: ${t.text} | ${pharaoh}`);

// Calls the types must refuse (never run).
async function refused(m: Model, d: Decoder, src: ModelSource): Promise<void> {
  // @ts-expect-error beam is a number
  m.translate('x', { beam: 'four' });
  // @ts-expect-error translateBatch takes an array of inputs
  m.translateBatch('x');
  // @ts-expect-error maxRows is a number
  m.translateBatch(['x'], { maxRows: 'all' });
  // @ts-expect-error force is a token id or a token string
  d.step({ force: {} });
  // @ts-expect-error models come from loadModel(), the constructor is private
  new Model();
  // @ts-expect-error config is read-only
  m.config.hidden = 3;
  // @ts-expect-error a number is not a model source
  await loadModel(42);
  // @ts-expect-error int8 is the only quantization
  await loadModel(src, { quantize: 'int4' });
  // @ts-expect-error not an error code
  if (new AttnseqError('BAD_INPUT', 'x').code === 'NOPE') return;
  // @ts-expect-error not a built-in task (and not { tsv })
  await createTrainer({ task: 'french' });
  await loadModel(src);
  await loadModel(new Blob([]));
  await loadModel(await fetch('https://example.com/m.safetensors'));
  await loadModel(new Uint8Array(8).buffer);
}
void refused;
