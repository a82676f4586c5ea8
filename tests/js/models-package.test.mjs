// The models package as a user gets it (issue 26, item 1): `npm pack` of attnseq and of
// packages/attnseq-models, both tarballs installed into an empty folder, and then:
//   - README.md's quick start runs there as written and prints what the repository's model says;
//   - list() names every entry of models/index.json with its files' sizes, and load(id) loads each
//     (a Model, or an Ensemble of its files) to the outputs the repository's files give;
//   - an unknown id is refused naming the ids there are, and nothing is left loaded;
//   - the package README's table is the one tools/pack_models.mjs writes (packing changes nothing).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, installPacked } from './packed.mjs';
import { loadModel, createEnsemble } from '../../wasm/attnseq.js';

const README = path.join(ROOT, 'packages/attnseq-models/README.md');
const index = JSON.parse(await readFile(path.join(ROOT, 'models/index.json'), 'utf8')).models;
let dir, pkg, readmeBefore, cleanup;

before(async () => {
  readmeBefore = await readFile(README, 'utf8');
  ({ dir, cleanup } = await installPacked({ models: true }));
  await writeFile(path.join(dir, 'models-entry.mjs'), "export * from 'attnseq-models';\n");
  pkg = await import(pathToFileURL(path.join(dir, 'models-entry.mjs')).href);
});
after(async () => { await cleanup?.(); });

const repoModel = async (entry) => {
  const models = await Promise.all((entry.files ?? [entry.file]).map((f) => loadModel(path.join(ROOT, 'models', f))));
  return models.length === 1 ? models[0] : createEnsemble(models);
};

test('README.md\'s quick start runs as written from the installed packages', async () => {
  const md = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = md.slice(md.indexOf('## Quick start'), md.indexOf('\n## ', md.indexOf('## Quick start') + 5));
  assert.match(section, /```sh\nnpm install attnseq attnseq-models\n```/);
  const code = /```js\n([\s\S]*?)```/.exec(section)[1];
  await writeFile(path.join(dir, 'quickstart.mjs'), code);
  const lines = execFileSync(process.execPath, ['quickstart.mjs'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
  const g2p = await loadModel(path.join(ROOT, 'models/g2p-en.safetensors'));
  const r = g2p.translate('attention', { beam: 5 });
  assert.deepEqual(lines, [g2p.translate('knight').text, `${r.text} ${r.rows} ${r.cols}`]);
  // The comments say what it prints.
  assert.match(code, new RegExp(`// ${lines[0]}\\n`));
  assert.match(code, new RegExp(`// ${lines[1]}\\n`));
  g2p.dispose();
});

test('list() names every model of models/index.json with its files\' sizes; load(id) loads each', async () => {
  const all = await pkg.list();
  assert.deepEqual(all.map((m) => m.id), index.map((m) => m.id));
  for (const m of all) {
    const want = index.find((e) => e.id === m.id);
    const files = want.files ?? [want.file];
    assert.deepEqual(m.files, files);
    assert.deepEqual(m.bytes, await Promise.all(files.map(async (f) => (await stat(path.join(ROOT, 'models', f))).size)), m.id);
    assert.deepEqual(m.examples, want.examples);
    const got = await pkg.load(m.id);
    const ref = await repoModel(want);
    assert.equal(got.constructor.name, files.length > 1 ? 'Ensemble' : 'Model', m.id);
    if (files.length > 1) assert.equal(got.size, files.length);
    for (const x of want.examples.slice(0, 2)) assert.equal(got.translate(x).text, ref.translate(x).text, `${m.id}: ${x}`);
    got.dispose();
    ref.dispose();
    assert.ok(got.disposed, `${m.id}: disposed with its models`);
  }
  const urls = await pkg.urls('g2p-ko');
  assert.ok(urls.every((u) => u.protocol === 'file:' && u.pathname.includes('/node_modules/attnseq-models/models/g2p/')), urls.join(' '));
});

test('an unknown id or a wrong type is refused naming the ids there are; the engine keeps nothing', async () => {
  const { memoryStats: stats } = await import(pathToFileURL(path.join(dir, 'node_modules/attnseq/wasm/attnseq.js')).href);
  const before = (await stats()).heapBytes;
  await assert.rejects(pkg.load('g2p-xx'), (e) => e.code === 'BAD_INPUT' && /no model 'g2p-xx'/.test(e.message) && /g2p-en, /.test(e.message) && /^load:/.test(e.message));
  await assert.rejects(pkg.load(42), (e) => e.code === 'BAD_INPUT' && /the id must be a string/.test(e.message));
  await assert.rejects(pkg.urls('nope'), (e) => e.code === 'BAD_INPUT' && /^urls: no model 'nope'/.test(e.message));
  await assert.rejects(pkg.load('g2p-en', { quantize: 'int4' }), (e) => e.code === 'BAD_INPUT' && /quantize/.test(e.message));
  assert.equal((await stats()).heapBytes, before);
});

test('the package README\'s table is what tools/pack_models.mjs writes', async () => {
  assert.equal(await readFile(README, 'utf8'), readmeBefore, 'packing rewrote packages/attnseq-models/README.md: run node tools/pack_models.mjs and commit it');
  for (const m of index) assert.match(readmeBefore, new RegExp(`^\\| \`${m.id}\` \\|`, 'm'), m.id);
});

test('its types (index.d.ts) type-check a strict consumer, and refuse a wrong id type', async () => {
  const tsconfig = JSON.parse(await readFile(path.join(ROOT, 'tests/types/tsconfig.json'), 'utf8'));
  tsconfig.files = ['models.ts'];
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  await writeFile(path.join(dir, 'models.ts'), [
    "import { load, list, urls, type ModelEntry } from 'attnseq-models';",
    "const all: ModelEntry[] = await list();",
    "const first: number | undefined = all[0]?.bytes[0];",
    "const m = await load('g2p-en', { quantize: 'int8' });",
    "const text: string = m.translate('knight').text;",
    "const u: URL[] = await urls('g2p-ko');",
    'm.dispose();',
    '// @ts-expect-error an id is a string',
    'await load(42);',
    'export { first, text, u };',
  ].join('\n'));
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const r = (() => { try { return { code: 0, out: execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' }) }; } catch (e) { return { code: e.status, out: `${e.stdout}${e.stderr}` }; } })();
  assert.equal(r.code, 0, r.out);
  // Without the @ts-expect-error, the wrong type is an error at that line.
  await writeFile(path.join(dir, 'models.ts'), (await readFile(path.join(dir, 'models.ts'), 'utf8')).replace('// @ts-expect-error an id is a string\n', ''));
  const bad = (() => { try { execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' }); return ''; } catch (e) { return `${e.stdout}`; } })();
  assert.match(bad, /models\.ts\(8,\d+\): error TS2345/);
});

test('README.md\'s download sizes are the files\' (g2p-en 4.6 MB, en-de and en-fr 19.5 MB each, every other language at most 2 MB, the 21 at most 30 MB)', async () => {
  const md = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const all = await pkg.list();
  const mb = (id) => all.find((m) => m.id === id).bytes.reduce((a, b) => a + b, 0) / 1e6;
  assert.match(md, new RegExp(`\`g2p-en\` is ${mb('g2p-en').toFixed(1)} MB`));
  const pair = md.match(/a translation pair \(`en-de`, `en-fr`: [^)]*\) ([\d.]+) MB/);
  assert.ok(pair, 'README.md gives the translation pairs\' size');
  for (const id of ['en-de', 'en-fr']) assert.equal(mb(id).toFixed(1), pair[1], id);
  for (const id of ['en-de', 'en-fr']) assert.ok(mb(id) <= 20, `${id}: ${mb(id)} MB, over the 20 MB a translation model may take`);
  const languages = all.filter((x) => x.task === 'pron' && x.id !== 'g2p-en');
  for (const m of languages) assert.ok(mb(m.id) <= 2, `${m.id}: ${mb(m.id)} MB`);
  assert.equal(languages.length, 21);
  assert.ok(languages.reduce((n, m) => n + mb(m.id), 0) <= 30, 'the 21 languages together take at most 30 MB');
});

test('lexicon(\'g2p-en\') is CMUdict as the repository holds it, read once; a user\'s lexicon goes first; the README example runs', async () => {
  const cmudict = await pkg.lexicon('g2p-en');
  assert.ok(cmudict instanceof Map);
  // Every (word, pronunciation) of the two files, once (a test word's line may list several, tab-separated).
  const pairs = new Set();
  for (const f of ['g014b2b.train', 'g014b2b.ref']) {
    for (const l of (await readFile(path.join(ROOT, 'data/cmudict', f), 'utf8')).split('\n').filter((x) => x.trim())) {
      const [w, ...prons] = l.split('\t');
      for (const p of prons) pairs.add(`${w}\t${p}`);
    }
  }
  assert.equal([...cmudict.values()].reduce((n, v) => n + v.length, 0), pairs.size, 'every pronunciation, once');
  for (const p of pairs) {
    const [w, pron] = p.split('\t');
    if (!cmudict.get(w)?.includes(pron)) assert.fail(`${w}: ${pron} is missing`);
  }
  assert.deepEqual(cmudict.get('COLONEL'), ['K ER N AH L']);
  assert.deepEqual(cmudict.get('THE'), ['DH AH', 'DH IY']);
  assert.equal(await pkg.lexicon('g2p-en'), cmudict, 'read once');
  const entry = (await pkg.list()).find((m) => m.id === 'g2p-en');
  assert.equal(entry.lexicon.bytes, (await stat(path.join(ROOT, 'models', entry.lexicon.file))).size);
  await assert.rejects(pkg.lexicon('en-de'), (e) => e.code === 'BAD_INPUT' && /has no lexicon; g2p-en has one/.test(e.message));
  await assert.rejects(pkg.lexicon('nope'), (e) => e.code === 'BAD_INPUT' && /no model 'nope'/.test(e.message));
  // The package README's example, as written.
  const md = await readFile(README, 'utf8');
  const code = [...md.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((c) => c.includes("lexicon('g2p-en')"));
  await writeFile(path.join(dir, 'lexicon-example.mjs'), code);
  const out = execFileSync(process.execPath, ['lexicon-example.mjs'], { cwd: dir, encoding: 'utf8' }).trim();
  assert.match(code, new RegExp(`// ${out.replace(/[()]/g, '\\$&')}\\n`));
  assert.match(out, /K ER N AH L \(lexicon\)/);
});
