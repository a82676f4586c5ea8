// The built-in training tasks as the panel offers them: what each one is, its probe input (whose
// alignment is redrawn while the model trains) and starting hyper-parameters that learn within a
// minute in a browser tab. Pure data; the engine's own task definitions are in src/train/.
export const TASKS = {
  dates: {
    label: 'Dates → ISO 8601',
    about: 'Human-written dates in 93 formats and any letter case ("3 March 2018", "14.08.2004", "JUL 21, 2015") to YYYY-MM-DD, character by character.',
    probe: '3 March 2018', steps: 1500, lr: 0.005, hidden: 64,
  },
  'en-ko': {
    label: 'English → Korean (toy)',
    about: 'A small English grammar translated word by word into Korean with its verb-final word order.',
    probe: 'Jane went to the store', steps: 800, lr: 0.005, hidden: 64,
  },
  reverse: {
    label: 'Reverse letters',
    about: 'Strings of 1–12 letters a–t, reversed. The ideal alignment is the anti-diagonal.',
    probe: 'abcdefg', steps: 1500, lr: 0.005, hidden: 64, minLength: 1, maxLength: 12,
  },
  copy: {
    label: 'Copy letters',
    about: 'Strings of 1–12 letters a–t, copied. The ideal alignment is the diagonal.',
    probe: 'abcdefg', steps: 800, lr: 0.005, hidden: 64, minLength: 1, maxLength: 12,
  },
};

/** The createTrainer() options for a panel configuration (see wasm/index.d.ts TrainerOptions). */
export function trainerOptions(c) {
  const t = TASKS[c.task];
  if (!t) throw new Error(`unknown task ${c.task}`);
  const o = {
    task: c.task,
    model: { style: c.style, score: c.score, cell: c.cell, hidden: c.hidden, embedding: Math.min(c.hidden, 32) },
    steps: c.steps, lr: c.lr, batchSize: 32, warmup: Math.min(100, Math.floor(c.steps / 10)), seed: c.seed ?? 1,
  };
  if (t.minLength) { o.minLength = t.minLength; o.maxLength = t.maxLength; }
  return o;
}

/** A short human label for a trained model ("dates · luong/dot · GRU 64 · step 1500"). */
export function modelLabel(c, step) {
  const attn = c.style === 'none' ? 'vanilla' : `${c.style}/${c.score}`;
  return `${c.task} · ${attn} · ${c.cell.toUpperCase()} ${c.hidden} · step ${step}`;
}

/** A file name for the download. */
export function modelFileName(c, step) {
  const attn = c.style === 'none' ? 'vanilla' : `${c.style}-${c.score}`;
  return `attnseq-${c.task}-${attn}-${c.cell}${c.hidden}-step${step}.safetensors`;
}
