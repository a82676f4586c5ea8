// Runs every ```js block of README.md's "JavaScript API" section as a module, as written, in an empty
// folder where the packed attnseq and attnseq-models are installed (what a user who pastes them into a
// project gets), and checks what they print against the comments that say what they print.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, installPacked } from './packed.mjs';

let dir, cleanup;
before(async () => { ({ dir, cleanup } = await installPacked({ models: true })); });
after(async () => { await cleanup?.(); });

test('README JavaScript examples run as written from the installed packages', async () => {
  const md = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = md.slice(md.indexOf('## JavaScript API'), md.indexOf('\n## ', md.indexOf('## JavaScript API') + 5));
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 4, 'the section has examples');
  const logs = [];
  for (const [i, code] of blocks.entries()) {
    assert.doesNotMatch(code, /tests\/data|'models\//, `block ${i} loads only what the packages hold`);
    await writeFile(path.join(dir, `readme-example-${i}.mjs`), code);
    logs.push(...execFileSync(process.execPath, [`readme-example-${i}.mjs`], { cwd: dir, encoding: 'utf8' }).trim().split('\n'));
  }
  const has = (line, what) => assert.ok(logs.includes(line), `${what ?? line}:\n${logs.join('\n')}`);
  has('luong dot 64');
  has('68 96');
  has('제인이 가게에 갔다 4 5 3');
  has('2 true', 'translateBatch example');
  has('제인이 false');
  has('가게에', 'the what-if attention row');
  has('갔다', 'the forced token');
  has('true BAD_INPUT');
  has('Ein Kind, das einen Apfel isst.', 'the translation example');
  has('▁A ▁child ▁who ▁is ▁eating ▁an ▁apple .');
  has('eating', 'the clause-final verb looks at the English verb');
  has('Schöne Grüße!');
  has(',Jane,went,to,the,store');
  has('0-0 4-1 2-2 3-3');
  has('제인이 가게에 갔다 2', 'the ensemble example');
  has('제인이 5,5', "the ensemble's decoder");
  has('Knight: N AY T /naɪt/ (model); rider: R AY D ER /ɹaɪdɚ/ (lexicon)', 'the pronounce() example');
  has('" " ", 2024!"', 'what pronounce() passes through');
});
