// `attnseq quantize --in F --out G` (src/cli/quantize.cpp) on the native command line: the int8
// file it writes (I8 matrices with NAME.scale, docs/checkpoint-format.md) is about a quarter of the
// f32 file and translates the shipped examples as the f32 model does; quantising it again changes
// no byte; every refusal names its cause, exits 1 and leaves the output as it was. Fails if the
// binary is missing (tests/js/native.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliOk, cliRefused, cliUsage } from './native.mjs';
import { headerOf, withHeader } from './safetensors.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODEL = (n) => path.join(ROOT, 'models', `${n}.safetensors`);
const TMP = mkdtempSync(path.join(os.tmpdir(), 'attnseq-quantize-'));
process.on('exit', () => rmSync(TMP, { recursive: true, force: true }));

const ok = (args) => cliOk(args).out;
const refused = cliRefused;
const usage = cliUsage;

// The safetensors header of a file: { name: { dtype, shape, data_offsets } } (and __metadata__).
const header = (file) => headerOf(readFileSync(file));
// The same file with a header edited by `edit` (the data section kept as it is: holes are allowed), at out.
function withHeaderFile(file, edit, out) {
  writeFileSync(out, withHeader(readFileSync(file), edit));
  return out;
}

const examples = Object.fromEntries(JSON.parse(readFileSync(path.join(ROOT, 'models/index.json'), 'utf8')).models.map((m) => [m.id, m.examples]));

test('quantize: an int8 checkpoint about a quarter the size, I8 matrices with their scales, the same translations', () => {
  for (const name of ['en-ko', 'dates', 'reverse']) {
    const out = path.join(TMP, `${name}-int8.safetensors`);
    const said = ok(['quantize', '--in', MODEL(name), '--out', out]);
    const f32 = header(MODEL(name)), q8 = header(out);
    const matrices = Object.entries(f32).filter(([k, t]) => k !== '__metadata__' && t.shape.length === 2 && k !== 'decoder.attention.v.weight');
    assert.match(said, new RegExp(`^${MODEL(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${matrices.length} of ${matrices.length} matrices quantised to int8 \\(0 already were\\)`));
    for (const [k, t] of matrices) {
      assert.equal(q8[k].dtype, 'I8', `${name}: ${k} is int8`);
      assert.deepEqual(q8[k].shape, t.shape);
      assert.equal(q8[`${k}.scale`].dtype, 'F32', `${name}: ${k}.scale`);
      assert.deepEqual(q8[`${k}.scale`].shape, [t.shape[0]], `${name}: one scale per row of ${k}`);
    }
    for (const [k, t] of Object.entries(f32))
      if (k !== '__metadata__' && !matrices.some(([m]) => m === k)) assert.equal(q8[k].dtype, t.dtype, `${name}: ${k} stays ${t.dtype}`);
    // The metadata is kept (the writer may add the per-side tokenizer keys an older file lacks).
    for (const [k, v] of Object.entries(f32.__metadata__)) assert.equal(q8.__metadata__[k], v, `${name}: metadata ${k}`);
    const ratio = statSync(out).size / statSync(MODEL(name)).size;
    assert.ok(ratio > 0.25 && ratio < 0.3, `${name}: int8 file / f32 file = ${ratio.toFixed(3)}, about a quarter`);

    assert.match(ok(['info', '--model', out]), new RegExp(`^parameters: \\d+ \\(int8: ${matrices.length} of ${matrices.length} matrices, a scale per row\\)$`, 'm'));
    for (const text of examples[name]) {
      const a = JSON.parse(ok(['translate', '--model', MODEL(name), '--json', text]));
      const b = JSON.parse(ok(['translate', '--model', out, '--json', text]));
      assert.equal(b.text, a.text, `${name}: "${text}" translates as the f32 model does`);
      assert.deepEqual(b.tokens, a.tokens);
    }
  }
});

test('quantize: an int8 input is written again byte for byte, also in place', () => {
  const once = path.join(TMP, 'once.safetensors'), twice = path.join(TMP, 'twice.safetensors');
  ok(['quantize', '--in', MODEL('en-ko-additive'), '--out', once]);
  assert.match(ok(['quantize', '--in', once, '--out', twice]), /: 0 of 10 matrices quantised to int8 \(10 already were\)/);
  assert.ok(readFileSync(once).equals(readFileSync(twice)));
  const inPlace = path.join(TMP, 'in-place.safetensors');
  copyFileSync(MODEL('en-ko-additive'), inPlace);
  ok(['quantize', '--in', inPlace, '--out', inPlace]);
  assert.ok(readFileSync(inPlace).equals(readFileSync(once)), '--out may be --in itself');
});

test('quantize: refusals name their cause, exit 1 (2 for usage errors) and leave the output as it was', () => {
  const out = path.join(TMP, 'keep.safetensors');
  writeFileSync(out, 'old');
  // Usage errors exit 2.
  usage(['quantize', '--out', out], '--in FILE is required');
  usage(['quantize', '--in', MODEL('en-ko')], '--out FILE is required');
  usage(['quantize', '--in', MODEL('en-ko'), '--out', out, '--beam', '2'], "unknown option --beam for 'quantize'");
  usage(['quantize', '--in', MODEL('en-ko'), '--out', out, 'extra'], "unexpected argument 'extra'");
  usage(['quantize', '--in', MODEL('en-ko'), '--out'], '--out needs a value');
  // `--out a --out b` wrote only b.
  const other = path.join(TMP, 'other.safetensors');
  usage(['quantize', '--in', MODEL('en-ko'), '--out', other, '--out', out], '--out is given twice');
  usage(['quantize', '--in', MODEL('en-ko'), '--in', MODEL('reverse'), '--out', out], '--in is given twice');
  assert.ok(!existsSync(other));
  refused(['quantize', '--in', path.join(TMP, 'absent.safetensors'), '--out', out], 'cannot open', 'absent.safetensors');
  refused(['quantize', '--in', MODEL('en-ko'), '--out', path.join(TMP, 'no-such-folder', 'x.safetensors')], 'cannot write', 'no-such-folder');

  // A truncated file, an f32 file holding a NaN, an int8 file without one of its scales or with a
  // scale of the wrong shape: each refused naming the file and what is wrong with it.
  const full = readFileSync(MODEL('en-ko'));
  const truncated = path.join(TMP, 'truncated.safetensors');
  writeFileSync(truncated, full.subarray(0, full.length - 100));
  refused(['quantize', '--in', truncated, '--out', out], `${truncated}: safetensors:`);
  const nan = Buffer.from(full);
  const h = header(MODEL('en-ko'));
  const at = 8 + Number(nan.readBigUInt64LE(0)) + h['decoder.out.weight'].data_offsets[0] + 4 * 7;
  nan.writeFloatLE(NaN, at);
  const nanFile = path.join(TMP, 'nan.safetensors');
  writeFileSync(nanFile, nan);
  refused(['quantize', '--in', nanFile, '--out', out], "tensor 'decoder.out.weight' holds a non-finite value at index 7");
  const q8 = path.join(TMP, 'en-ko-int8.safetensors');
  ok(['quantize', '--in', MODEL('en-ko'), '--out', q8]);
  const noScale = withHeaderFile(q8, (x) => (delete x['decoder.rnn.weight_hh_l0.scale'], x), path.join(TMP, 'no-scale.safetensors'));
  refused(['quantize', '--in', noScale, '--out', out],
    "tensor 'decoder.rnn.weight_hh_l0' is I8 but its scales 'decoder.rnn.weight_hh_l0.scale' are missing");
  const wrongShape = withHeaderFile(q8, (x) => {
    const s = x['decoder.out.weight.scale'];
    s.shape = [s.shape[0] - 1];
    s.data_offsets = [s.data_offsets[0], s.data_offsets[1] - 4];
    return x;
  }, path.join(TMP, 'wrong-shape.safetensors'));
  refused(['quantize', '--in', wrongShape, '--out', out], "scales 'decoder.out.weight.scale' have shape [95], expected [96]");
  refused(['translate', '--model', wrongShape, 'Jane went to the store'], "scales 'decoder.out.weight.scale' have shape [95]");

  assert.equal(readFileSync(out, 'utf8'), 'old', 'a refused run leaves the output as it was');
  assert.deepEqual(readdirSync(TMP).filter((f) => f.includes('.tmp')), [], 'no temporary file is left behind');
});
