// The SIGMORPHON 2021 languages on the demo page, in real Chromium: the pronunciation models are a
// language picker (English's CMUdict model, then the languages of models/index.json, each titled in
// its own language); a low-resource language's ensemble plays a word to what the package's ensemble
// says in Node, a column per letter it read, the IPA output shown as the model gives it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo, panelErrors, OUT } from './helpers.mjs';
import { loadModel, createEnsemble } from '../../wasm/attnseq.js';

const manifest = JSON.parse(await readFile(path.resolve('models/index.json'), 'utf8')).models;
const languages = manifest.filter((m) => m.task === 'pron' && m.files);
const loaded = [];
const ensembleOf = async (entry) => {
  const models = await Promise.all(entry.files.map(async (f) => loadModel(await readFile(path.resolve('models', f)))));
  loaded.push(...models);
  return createEnsemble(models);
};

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { for (const m of loaded) m.dispose(); await browser?.close(); srv?.server.close(); });

const play = async (page, word) => {
  await page.fill('#source', word);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
};
const matrixShape = (page) => page.$$eval('#alignment tbody tr', (trs) => [trs.length, trs[0]?.querySelectorAll('td[data-col]').length ?? 0]);

test('the pronunciation models are a language picker: English, then every shipped language in its own words', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  assert.deepEqual(await panelErrors(page), []);
  const group = await page.$$eval('#model optgroup', (gs) => gs.map((g) => ({ label: g.label, ids: Array.from(g.querySelectorAll('option'), (o) => o.value) })));
  const pron = group.find((g) => g.ids.includes('g2p-en'));
  assert.ok(pron, 'a group holds the pronunciation models');
  assert.match(pron.label, /^Pronunciation/);
  assert.deepEqual(pron.ids, ['g2p-en', ...languages.map((m) => m.id)]);
  assert.ok(languages.length >= 1);
  for (const m of languages) assert.match(m.title, /^\S.* — .* pronunciation \(IPA\)$/, `${m.id}: the language's own name, then English`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a low-resource language (Adyghe, an ensemble): a word plays to the package\'s ensemble output, letter by letter', async () => {
  const entry = manifest.find((m) => m.id === 'g2p-ady');
  assert.ok(entry && entry.files.length > 1, 'Adyghe ships as an ensemble');
  const ensemble = await ensembleOf(entry);
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', entry.id);
  await page.waitForFunction((n) => new RegExp(`ensemble of ${n} models`).test(document.getElementById('model-info').textContent) &&
    !document.getElementById('play').disabled, entry.files.length);
  assert.deepEqual(await page.$$eval('#examples button.chip', (bs) => bs.map((b) => b.textContent)), entry.examples);
  assert.match(await page.textContent('#model-info'), /CC BY-SA 3\.0/, 'the licence is named');
  assert.match(await page.textContent('#model-info'), /reads letters \(Unicode code points\), writes phones/, 'what the model reads');
  for (const word of entry.examples.slice(0, 2)) {
    await play(page, word);
    const r = ensemble.translate(word);
    assert.equal(await page.textContent('#output'), r.text, `${word}: the page's output is the package's`);
    assert.match(r.text, /^\S+( \S+)*$/, 'IPA phones, space-separated');
    assert.deepEqual(await matrixShape(page), [r.rows, [...word].length], `${word}: a row per phone (and EOS), a column per letter`);
    assert.equal(await page.isVisible('#ipa-note'), false, 'no ARPAbet-to-IPA note: the output is IPA as given');
  }
  await page.screenshot({ path: path.join(OUT, 'demo-sigmorphon-ady.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('Korean: the sound-change examples play to the package\'s ensemble output, each syllable above its jamo', async () => {
  const entry = manifest.find((m) => m.id === 'g2p-ko');
  assert.deepEqual(entry.examples, ['국물', '음악', '같이', '신라', '좋다'], 'the issue\'s examples: nasalisation, liaison, palatalisation, lateralisation, aspiration');
  const ensemble = await ensembleOf(entry);
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', entry.id);
  await page.waitForFunction(() => /Hangul read as jamo/.test(document.getElementById('model-info').textContent) && !document.getElementById('play').disabled);
  assert.match(await page.textContent('#model-info'), /^한국어 — Korean pronunciation \(IPA\)/);
  assert.deepEqual(await page.$$eval('#examples button.chip', (bs) => bs.map((b) => b.textContent)), entry.examples);
  for (const word of entry.examples) {
    await play(page, word);
    const r = ensemble.translate(word);
    assert.equal(await page.textContent('#output'), r.text, `${word}: the page's output is the package's`);
    const jamo = [...word.normalize('NFD')].length;
    assert.deepEqual(await matrixShape(page), [r.rows, jamo], `${word}: a column per jamo`);
    const syllables = await page.$$eval('#alignment thead th.syllable', (ths) => ths.map((t) => [t.textContent, Number(t.colSpan)]));
    assert.deepEqual(syllables, [...word].map((s) => [s, [...s.normalize('NFD')].length]), `${word}: each syllable above its letters`);
  }
  await play(page, entry.examples[0]);
  await page.screenshot({ path: path.join(OUT, 'demo-sigmorphon-ko.png') });
  // Text in another script: its letters are unknown to the model, marked, and the output is still the package's.
  await page.fill('#source', 'kimchi');
  await page.waitForFunction(() => !document.getElementById('source-note').hidden);
  assert.match(await page.textContent('#source-note'), /unknown to this model/i);
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  assert.equal(await page.textContent('#output'), ensemble.translate('kimchi').text);
  assert.deepEqual(problems, []);
  await page.close();
});
