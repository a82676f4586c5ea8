// The engine's SentencePiece encoder against the library's (python3-sentencepiece, which
// scripts/setup.sh installs): for each of the Multi30K tokenizers (data/multi30k/spm, trained by
// scripts/train-multi30k.sh with spm_train), every line of every split in its language (train, val and
// both test sets) and a set of odd text must give the library's ids, natively (`attnseq tokenize
// --spm`) and in WebAssembly (model.tokenize() on a checkpoint that carries the tokenizer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../wasm/attnseq.js';
import { NATIVE_CLI, requireNativeCli } from './native.mjs';
import { spmCheckpoint } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DATA = path.join(ROOT, 'data/multi30k');
const SPLITS = ['train', 'val', 'test_2016_flickr', 'test_2017_flickr'];

// Text no training line looks like: emoji (with modifiers and joiners), combining marks, CJK,
// fullwidth forms, control characters, spaces of every width, the empty string, 10,000 characters.
const ODD = [
  '', ' ', '   ', '  two  spaces  inside  ', 'A dog 🐕 runs 🏃‍♂️ fast 👍🏽.', 'e\u0301te\u0301 cafe\u0301 n\u0303',
  '日本語のテキスト 中文 한국어', 'Ｆｕｌｌｗｉｄｔｈ　ＡＢＣ　１２３', 'tab\there\x01\x02\x7f and bell\x07',
  '\u2581 already escaped \u2581\u2581', '<s> </s> <unk> <pad>', 'Ärger über Öl, Straße', '\ufeffzero\u200bwidth',
  'ﬁ ligature, Ⅻ numeral, ㎏ unit, ½ fraction', '\u00a0non-breaking\u2003em space\u3000ideographic',
  'Ελληνικά и кириллица', 'ℌ𝔢𝔩𝔩𝔬 𝕨𝕠𝕣𝕝𝕕',
  Array.from('A man in an orange hat 🐕 日本 '.repeat(400)).slice(0, 10000).join(''),
];

function libraryIds(model, lines, dir) {
  const input = path.join(dir, 'lines.json');
  writeFileSync(input, JSON.stringify(lines));
  const py = [
    'import json, sys, sentencepiece as spm',
    'sp = spm.SentencePieceProcessor(model_file=sys.argv[1])',
    'lines = json.load(open(sys.argv[2], encoding="utf-8"))',
    'sys.stdout.write(json.dumps([sp.encode(l) for l in lines]))',
  ].join('\n');
  const r = spawnSync('/usr/bin/python3', ['-c', py, model, input], { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `python3-sentencepiece: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function nativeIds(model, lines) {
  requireNativeCli();
  // One line in, one line out: the odd cases hold no newline or carriage return.
  const r = spawnSync(NATIVE_CLI, ['tokenize', '--spm', model], { input: lines.join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `attnseq tokenize: ${r.stderr}`);
  const out = r.stdout.split('\n');
  assert.equal(out.pop(), '');
  return out.map((l) => (l === '' ? [] : l.split(' ').map(Number)));
}

function firstDifference(a, b, lines) {
  for (let i = 0; i < lines.length; i++)
    if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return `line ${i + 1} ${JSON.stringify(lines[i].slice(0, 80))}: ${JSON.stringify(a[i])} vs the library's ${JSON.stringify(b[i])}`;
  return null;
}

for (const lang of ['en', 'de', 'fr']) {
  test(`spm ${lang}: every Multi30K line and odd text give the library's ids, natively and in WebAssembly`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'attnseq-spm-'));
    try {
      const modelPath = path.join(DATA, 'spm', `m30k_${lang}.model`);
      const lines = [...ODD.filter((l) => !/[\n\r]/.test(l))];
      for (const s of SPLITS) lines.push(...readFileSync(path.join(DATA, 'raw', `${s}.${lang}`), 'utf8').split('\n').slice(0, -1));
      assert.ok(lines.length > 32000, `${lines.length} lines`);
      const want = libraryIds(modelPath, lines, dir);
      assert.equal(want.length, lines.length);
      assert.equal(firstDifference(nativeIds(modelPath, lines), want, lines), null, 'native');
      // WebAssembly: the tokenizer inside a checkpoint, on both sides.
      const bytes = new Uint8Array(readFileSync(modelPath));
      const model = await loadModel(spmCheckpoint(bytes, bytes));
      try {
        assert.equal(model.config.srcTokenizer, 'spm');
        const src = lines.map((l) => Array.from(model.tokenize(l).ids));
        assert.equal(firstDifference(src, want, lines), null, 'wasm, source side');
        const tgt = ODD.map((l) => Array.from(model.tokenize(l, 'target').ids));
        assert.equal(firstDifference(tgt, want.slice(0, ODD.length), ODD), null, 'wasm, target side');
      } finally {
        model.dispose();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('attnseq tokenize: a checkpoint side or a .model file; usage errors exit 2 naming the flag', () => {
  requireNativeCli();
  const run = (args, input) => spawnSync(NATIVE_CLI, ['tokenize', ...args], { input, encoding: 'utf8' });
  const spm = path.join(DATA, 'spm', 'm30k_de.model');
  const r = run(['--spm', spm, '--pieces', 'Ein Mann fährt Fahrrad.']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '▁Ein ▁Mann ▁fährt ▁Fahrrad .\n');
  for (const [args, message] of [
    [[], 'give one of --model FILE or --spm FILE.model'],
    [['--spm', spm, '--model', spm], 'give one of --model FILE or --spm FILE.model'],
    [['--spm', spm, '--side', 'target'], '--side goes with --model'],
    [['--spm', spm, '--spm', spm], '--spm is given twice'],
    [['--frob'], 'unknown option --frob'],
  ]) {
    const e = run(args, '');
    assert.equal(e.status, 2, `${args.join(' ')}: ${e.stderr}`);
    assert.match(e.stderr, new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  }
  const bad = run(['--spm', path.join(DATA, 'raw', 'val.de')], 'x\n');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /val\.de/);
});

// Subword regularisation: `attnseq tokenize --sample-alpha A` draws segmentations as the library's
// SampleEncode (enable_sampling, nbest_size -1) does. The draws of two random generators never match one
// for one, so the test compares distributions: over 20,000 draws of a word, the total variation distance
// between the engine's frequencies and the library's must be about the distance between two of the
// library's own runs (sampling noise alone), for German and English, at two alphas.
test('attnseq tokenize --sample-alpha: the library\'s distribution of segmentations', () => {
  requireNativeCli();
  const N = 20000;
  const freq = (rows) => {
    const m = new Map();
    for (const r of rows) m.set(r, (m.get(r) ?? 0) + 1 / N);
    return m;
  };
  const tv = (a, b) => 0.5 * [...new Set([...a.keys(), ...b.keys()])].reduce((s, k) => s + Math.abs((a.get(k) ?? 0) - (b.get(k) ?? 0)), 0);
  for (const [lang, word] of [['en', 'climbing'], ['de', 'Straßenmusiker']]) {
    const model = path.join(DATA, 'spm', `m30k_${lang}.model`);
    for (const alpha of ['0.1', '0.5']) {
      const py = [
        'import sys, sentencepiece as spm',
        'spm.set_random_generator_seed(int(sys.argv[4]))',
        'sp = spm.SentencePieceProcessor(model_file=sys.argv[1])',
        'for _ in range(int(sys.argv[3])): print(" ".join(map(str, sp.encode(sys.argv[2], enable_sampling=True, alpha=float(sys.argv[5]), nbest_size=-1))))',
      ].join('\n');
      const lib = (seed) => {
        const r = spawnSync('/usr/bin/python3', ['-c', py, model, word, String(N), String(seed), alpha], { encoding: 'utf8', maxBuffer: 1 << 28 });
        assert.equal(r.status, 0, `python3-sentencepiece: ${r.stderr}`);
        return freq(r.stdout.trim().split('\n'));
      };
      const r = spawnSync(NATIVE_CLI, ['tokenize', '--spm', model, '--sample-alpha', alpha, '--seed', '5'], { input: `${word}\n`.repeat(N), encoding: 'utf8', maxBuffer: 1 << 28 });
      assert.equal(r.status, 0, r.stderr);
      const ours = freq(r.stdout.trim().split('\n'));
      const [a, b] = [lib(1), lib(2)];
      const noise = tv(a, b), dist = tv(ours, a);
      assert.ok(ours.size > 3, `${word}: ${ours.size} segmentations drawn`);
      assert.ok(dist < 1.5 * noise + 0.01, `${lang} '${word}' at alpha ${alpha}: distance to the library ${dist.toFixed(4)}, the library to itself ${noise.toFixed(4)}`);
    }
  }
  // A large alpha gives the one best segmentation; the flags' errors name them.
  const spm = path.join(DATA, 'spm', 'm30k_de.model');
  const best = spawnSync(NATIVE_CLI, ['tokenize', '--spm', spm, '--pieces', '--sample-alpha', '1e4', 'Ein Mann fährt Fahrrad.'], { encoding: 'utf8' });
  assert.equal(best.stdout, '▁Ein ▁Mann ▁fährt ▁Fahrrad .\n');
  for (const [args, message] of [
    [['--seed', '3'], '--seed goes with --sample-alpha'],
    [['--sample-alpha', '-1'], '--sample-alpha expects a number in [0, 1e6]'],
    [['--sample-alpha', 'x'], '--sample-alpha'],
  ]) {
    const e = spawnSync(NATIVE_CLI, ['tokenize', '--spm', spm, ...args, 'x'], { encoding: 'utf8' });
    assert.equal(e.status, 2, `${args.join(' ')}: ${e.stderr}`);
    assert.ok(e.stderr.includes(message), e.stderr);
  }
});
