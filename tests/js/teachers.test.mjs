// models/teachers/ (its README.md): models kept to decode with or distil from, not shipped. Each file
// there has its section in that README, loads, and decodes together with the shipped model of its
// task (the same vocabularies and tokenizers: createEnsemble refuses any other), and
// models/index.json (all that the attnseq-models package takes) does not list it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { loadModel, createEnsemble } from '../../wasm/attnseq.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = path.join(ROOT, 'models/teachers');
const files = readdirSync(DIR).filter((f) => f.endsWith('.safetensors')).sort();
const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');
// The shipped model a teacher belongs with: its name's prefix (g2p-en-s2 -> g2p-en, en-fr-ds1 -> en-fr).
const shippedOf = (f) => ['g2p-en', 'en-de', 'en-fr'].find((id) => f.startsWith(`${id}-`));
const index = JSON.parse(readFileSync(path.join(ROOT, 'models/index.json'), 'utf8'));
// What a teacher decodes: the first example of its shipped model's entry in models/index.json.
const inputOf = (id) => {
  const entry = index.models.find((m) => m.id === id);
  assert.ok(entry?.examples?.length, `models/index.json: no examples for ${id}`);
  return entry.examples[0];
};

test('every teacher has its section in models/teachers/README.md and a shipped model of its task', () => {
  assert.ok(files.length >= 5, `models/teachers holds ${files.length} models`);
  const headings = readme.split('\n').filter((l) => l.startsWith('## '));
  for (const f of files) {
    assert.ok(headings.some((h) => h.includes(`\`${f}\``)), `${f}: no section of models/teachers/README.md names it`);
    assert.ok(shippedOf(f), `${f}: no shipped model of its task`);
  }
});

test('no teacher ships: models/index.json, which is all the attnseq-models package takes (tools/pack_models.mjs), leaves them out', () => {
  const listed = index.models.flatMap((m) => m.files ?? [m.file]).map((f) => path.basename(f));
  for (const f of files) assert.ok(!listed.includes(f), `${f} is listed in models/index.json`);
});

test('every teacher loads and decodes together with its shipped model', async () => {
  for (const f of files) {
    const id = shippedOf(f);
    const input = inputOf(id);
    const [t, s] = [await loadModel(path.join(DIR, f)), await loadModel(path.join(ROOT, 'models', `${id}.safetensors`))];
    try {
      const alone = t.translate(input);
      assert.ok(alone.tokens.length > 0, `${f}: an empty answer for ${input}`);
      const e = createEnsemble([s, t]);
      assert.ok(e.translate(input).tokens.length > 0, `${f} with ${id}: an empty answer`);
    } finally {
      t.dispose();
      s.dispose();
    }
  }
});
