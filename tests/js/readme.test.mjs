// Runs every ```js block of README.md's "JavaScript API" section as a module, with 'attnseq'
// resolved to this repository's package entry, from the repository root: the examples cannot rot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('README JavaScript examples run', async () => {
  const md = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = md.slice(md.indexOf('## JavaScript API'), md.indexOf('\n## ', md.indexOf('## JavaScript API') + 5));
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 2, 'the section has examples');
  const entry = pathToFileURL(path.join(ROOT, 'wasm/attnseq.js')).href;
  const cwd = process.cwd();
  process.chdir(ROOT);
  const logs = [];
  const orig = console.log;
  try {
    for (const [i, code] of blocks.entries()) {
      const file = path.join(ROOT, `test-output/readme-example-${i}.mjs`);
      await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(file), { recursive: true }));
      await writeFile(file, code.replaceAll("from 'attnseq'", `from '${entry}'`));
      console.log = (...a) => logs.push(a.map(String).join(' '));
      try {
        await import(pathToFileURL(file).href);
      } finally {
        console.log = orig;
        await rm(file, { force: true });
      }
    }
  } finally {
    process.chdir(cwd);
  }
  assert.ok(logs.includes('luong general 12'), logs.join('\n'));
  assert.ok(logs.includes('13 11'));
  assert.ok(logs.includes('2 true'), 'translateBatch example');
  assert.ok(logs.includes('true BAD_INPUT'));
  assert.ok(logs.includes('Ein Kind, das einen Apfel isst.'), 'the translation example');
  assert.ok(logs.includes('▁A ▁child ▁who ▁is ▁eating ▁an ▁apple .'));
  assert.ok(logs.includes('eating'), 'the clause-final verb looks at the English verb');
  assert.ok(logs.includes('Schöne Grüße!'));
  assert.ok(logs.includes(',w5,w6,w7'));
  assert.ok(logs.includes('존이 가게에 갔다 2'), 'the ensemble example');
  assert.ok(logs.includes('존이 5,5'), "the ensemble's decoder");
});
