// The shipped translation model on the demo page, in real Chromium: the page opens on it (English
// source; models/index.json's first entry), its examples play word by word, and the alignment shows what
// attention is for: the German verb moved to the end of a relative clause looks back at the English
// verb, and each noun at its noun; in the seed's sentence, "Laden" looks at "store". The step inspector, beam, compare and a what-if work for it, the
// matrix's words match the package's translate() of the same input, and a screenshot is saved. A
// reader whose browser asks for French gets English → French, where the adjective follows its noun
// ("a red car", "une voiture rouge") and the alignment crosses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startServer, launch, openDemo, OUT } from './helpers.mjs';
import { loadModel, createEnsemble } from '../../wasm/attnseq.js';

const manifest = JSON.parse(await readFile('models/index.json', 'utf8')).models;
const entry = manifest.find((m) => m.id === 'en-de');
const french = manifest.find((m) => m.id === 'en-fr');
let srv, browser, model, frModel;
const members = [];
// An entry's model as the package gives it: its one file, or its files decoding together.
async function entryModel(e) {
  const ms = [];
  for (const f of e.files ?? [e.file]) ms.push(await loadModel(await readFile(path.join('models', f))));
  members.push(...ms);
  return ms.length === 1 ? ms[0] : createEnsemble(ms);
}
before(async () => {
  srv = await startServer();
  browser = await launch();
  model = await entryModel(entry);
  frModel = await entryModel(french);
});
after(async () => { for (const m of members) m.dispose(); await browser?.close(); srv?.server.close(); });

// The word matrix as the page draws it: source words, and each target word with its weights.
const wordMatrix = (page) => page.evaluate(() => {
  const t = document.getElementById('alignment');
  return {
    src: Array.from(t.tHead.rows[0].cells).slice(1).map((th) => th.textContent),
    rows: Array.from(t.tBodies[0].rows, (tr) => ({ word: tr.cells[0].textContent, w: Array.from(tr.querySelectorAll('td'), (td) => Number(td.dataset.weight)) })),
  };
});
// What the package gives in this browser, in the page itself: the numbers the page's must equal. (An
// int8 model such as en-de decodes with 7-bit activations on Chromium's relaxed-SIMD path, so its
// weights differ a little from Node's plain path: README, "Instruction sets".)
const inPage = (page, files, text) => page.evaluate(async ({ files, text }) => {
  const mod = await import('/wasm/attnseq.js');  // the page's own engine, already initialised
  const ms = await Promise.all(files.map((f) => mod.loadModel(`/models/${f}`)));
  const m = ms.length === 1 ? ms[0] : mod.createEnsemble(ms);  // the entry as it ships
  const r = m.translate(text);
  const out = { text: r.text, source: r.words.source, target: r.words.target, attention: Array.from(r.words.attention) };
  m.dispose();
  return out;
}, { files, text });
const argmax = (w) => w.indexOf(Math.max(...w));
const lookedAt = (m, word) => {
  const row = m.rows.find((r) => r.word === word);
  assert.ok(row, `the output has the word “${word}”: ${m.rows.map((r) => r.word).join(' ')}`);
  return m.src[argmax(row.w)];
};

async function play(page, text) {
  await page.fill('#source', text);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done', null, { timeout: 60000 });
}

test('the page opens on English → German and its words look where a translator would', async () => {
  assert.equal(manifest[0].id, 'en-de', 'translation from English is the first entry of models/index.json');
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  assert.equal(await page.inputValue('#model'), 'en-de', 'selected when the page opens');
  assert.equal(await page.inputValue('#source'), entry.examples[0], 'its first example in the input');
  assert.match(await page.textContent('#model-info'), /non-commercial research and education only/, 'the data\'s terms are shown');
  assert.equal(await page.getAttribute('#units-words', 'aria-pressed'), 'true', 'words, not pieces');

  // A relative clause: German puts its verb last, and that word looks back at the English verb.
  await play(page, entry.examples[0]);
  const text = await page.textContent('#output');
  const r = await inPage(page, entry.files ?? [entry.file], entry.examples[0]);
  assert.equal(text, r.text, 'the page decodes what the package does (greedy)');
  assert.equal(text, 'Ein Kind, das einen Apfel isst.');
  const m = await wordMatrix(page);
  assert.deepEqual(m.src, r.source);
  assert.deepEqual(m.rows.map((x) => x.word), r.target);
  for (let i = 0; i < m.rows.length; i++)
    for (let j = 0; j < m.src.length; j++) assert.ok(Math.abs(m.rows[i].w[j] - r.attention[i * m.src.length + j]) < 1e-6);
  // Node's package (the plain path) writes the same words, its weights within 0.05 of these.
  const node = model.translate(entry.examples[0]);
  assert.equal(node.text, r.text);
  for (let k = 0; k < r.attention.length; k++) assert.ok(Math.abs(node.words.attention[k] - r.attention[k]) < 0.05, `weight ${k}`);
  assert.equal(lookedAt(m, 'isst'), 'eating', 'the clause-final verb looks back at the English verb');
  assert.equal(lookedAt(m, 'Kind'), 'child');
  assert.equal(lookedAt(m, 'Apfel'), 'apple');
  // The picture for the README: the verb's row inspected, the matrix and the inspector in view.
  await page.click(`#alignment tbody tr:nth-child(${m.rows.findIndex((x) => x.word === 'isst') + 1}) .row-btn`);
  assert.match(await page.textContent('#inspector-title'), /“▁isst”|“t”|“st”/, 'its step is inspected');
  await page.evaluate(() => document.getElementById('watch').scrollIntoView());
  await page.screenshot({ path: path.join(OUT, 'demo-translation.png') });

  // The seed's own sentence.
  await play(page, 'Jane went to the store.');
  const jane = await wordMatrix(page);
  assert.equal(lookedAt(jane, 'Laden'), 'store', 'out of the captions\' domain (a name, the past tense), but “Laden” still looks at “store”');

  // Pieces, the inspector, beam search and compare work for it too.
  await page.click('#units-pieces');
  const pieces = await page.$$eval('#alignment tbody tr', (trs) => trs.length);
  assert.ok(pieces > jane.rows.length, 'a row per piece, the end token included');
  await page.click('#units-words');
  await page.fill('#beam-size', '4');
  await page.click('#beam-run');
  await page.waitForFunction(() => document.getElementById('beam').dataset.state === 'done');
  assert.equal(await page.locator('#beam-results > li').count(), 4, 'four hypotheses');
  await page.click('#compare-run');
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done', null, { timeout: 60000 });
  assert.ok(await page.locator('#compare-scores figure, #compare-scores .figure, #compare-scores > *').count() >= 1);
  // What if the first word's first step had looked only at "store"?
  const store = jane.src.indexOf('store');
  await page.dragAndDrop('#alignment tbody tr:first-child td[data-col="0"]', `#alignment tbody tr:first-child td[data-col="${store}"]`);
  await page.waitForFunction(() => !document.getElementById('whatif-note').hidden && /without it/.test(document.getElementById('whatif-text').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#whatif-text'), /step 1 → “store”/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a reader of French gets English → French, where the adjective follows its noun and the alignment crosses', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, {
    route: (p) => p.addInitScript(() => Object.defineProperty(navigator, 'languages', { get: () => ['fr-FR', 'fr', 'en'] })),
  });
  assert.equal(await page.inputValue('#model'), 'en-fr', 'the browser asks for French first');
  assert.equal(await page.inputValue('#source'), french.examples[0]);
  assert.match(await page.textContent('#model-info'), /non-commercial research and education only/);
  await play(page, french.examples[0]);
  const r = frModel.translate(french.examples[0]);
  assert.equal(await page.textContent('#output'), r.text, 'the page decodes what the package does (greedy)');
  assert.equal(r.text, 'Une voiture rouge est garée dans la rue.');
  const m = await wordMatrix(page);
  assert.deepEqual(m.rows.map((x) => x.word), r.words.target);
  assert.equal(lookedAt(m, 'voiture'), 'car');
  assert.equal(lookedAt(m, 'rouge'), 'red');
  // The swap: "red" comes before "car" in English, "rouge" after "voiture" in French.
  const row = (w) => m.rows.findIndex((x) => x.word === w);
  assert.ok(m.src.indexOf('red') < m.src.indexOf('car') && row('rouge') > row('voiture'), 'the alignment crosses');
  assert.equal(lookedAt(m, 'rue'), 'street');
  // en-fr is an ensemble of two: a what-if moves both members' attention, and the decode goes on.
  const street = m.src.indexOf('street');
  await page.dragAndDrop('#alignment tbody tr:first-child td[data-col="0"]', `#alignment tbody tr:first-child td[data-col="${street}"]`);
  await page.waitForFunction(() => !document.getElementById('whatif-note').hidden && /without it/.test(document.getElementById('whatif-text').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#whatif-text'), /step 1 → “street”/);
  const after = await wordMatrix(page);
  assert.equal(after.src[argmax(after.rows[0].w)], 'street', 'the first word looked only at “street”');
  assert.deepEqual(problems, []);
  await page.close();
});
