// Option checking of the package: the names each function takes (a misspelt name is refused, naming
// the nearest valid one), with the decode options' names learnt from the engine's one table
// (src/decode/options.hpp, through the bindings' decodeOptions()), and describe(), how a message
// shows a value it refuses.
import { AttnseqError } from './errors.js';

// The option names each function takes. A misspelt name (`bem: 3`) must not silently run the default,
// so any other name is refused, naming the nearest valid one.
// The decode options' names come from the engine's table (decodeOptions(), by scope), learnt when the
// first engine of this thread starts or a pool's Worker reports its own; the rest are the wrapper's.
const OPTION_NAMES = {
  init: ['locateFile', 'wasmBinary', 'relaxedSimd'],
  loadModel: ['quantize'],
  createPool: ['workers', 'quantize'],
  translate: ['prefix', 'replaceUnknowns'],
  translateBatch: ['prefix', 'replaceUnknowns', 'maxRows'],
  translateStream: ['prefix', 'replaceUnknowns', 'maxRows', 'window'],
  decoder: ['prefix', 'topk'],
  step: ['force', 'attention'],
  createTrainer: ['task', 'model', 'batchSize', 'lr', 'steps', 'warmup', 'clip', 'seed', 'minLength', 'maxLength'],
  'createTrainer model': ['style', 'score', 'cell', 'hidden', 'embedding', 'layers', 'bidirectional', 'inputFeeding',
    'bridge', 'tieEmbeddings', 'attentionSize', 'attentionQueryBias', 'name'],
  'createTrainer task': ['tsv', 'tokenizer', 'srcTokenizer', 'tgtTokenizer'],
};

const DECODE_SCOPE = { translate: 'one', translateBatch: 'batch', translateStream: 'batch', decoder: 'step' };
let decodeTable = null;

/** The decode options' table, as learnt from the engine (null before any engine has started). */
export const decodeRows = () => decodeTable;

export function learnDecodeOptions(rows) {
  if (decodeTable) return;
  decodeTable = Object.freeze(rows.map((r) => Object.freeze({ ...r, scope: Object.freeze([...r.scope]) })));
  for (const [where, scope] of Object.entries(DECODE_SCOPE))
    OPTION_NAMES[where] = [...decodeTable.filter((r) => r.scope.includes(scope)).map((r) => r.name), ...OPTION_NAMES[where]];
}

// step()'s check, without the array Object.keys() would make per call: any own name other than
// 'force' and 'attention' (or a non-object) goes to checkOptions, which throws with its message.
export function checkStepOptions(o) {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return checkOptions(o, 'step');
  for (const k in o) if (k !== 'force' && k !== 'attention' && Object.hasOwn(o, k)) return checkOptions(o, 'step');
}

export function checkOptions(o, where) {
  if (o === null || typeof o !== 'object' || Array.isArray(o))
    throw new AttnseqError('BAD_INPUT', `${where} options must be an object, got ${describe(o)}`);
  const valid = OPTION_NAMES[where];
  for (const k of Object.keys(o)) {
    if (valid.includes(k)) continue;
    const near = valid.reduce((a, b) => (editDistance(k, b) < editDistance(k, a) ? b : a));
    throw new AttnseqError('BAD_INPUT', `${where}: unknown option '${k}' (did you mean '${near}'? valid: ${valid.join(', ')})`);
  }
}

function editDistance(a, b) {  // Levenshtein, case-insensitive
  a = a.toLowerCase(); b = b.toLowerCase();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

export function describe(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'an array';
  return v === null ? 'null' : typeof v === 'object' ? 'an object' : String(v);
}
