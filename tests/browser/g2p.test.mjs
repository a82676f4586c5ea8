// The English pronunciation model on the demo page in real Chromium: chosen in the picker, its
// example chips come from models/index.json, and a word typed in
// any letter case plays letter by letter to what the package's translate() says in Node (a row per
// phoneme, a column per letter), with its IPA beside it (docs/g2p.md's table); the step inspector,
// the compare view and beam search work for it. Nothing is hard-coded: every expected value is
// computed here from the package and the table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo, panelErrors, OUT, runToEnd } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';
import { toIPA } from '../../web/pronunciation.js';

const manifest = JSON.parse(await readFile(path.resolve('models/index.json'), 'utf8')).models;
const entry = manifest.find((m) => m.id === 'g2p-en');

let srv, browser, model;
before(async () => {
  srv = await startServer();
  browser = await launch();
  model = await loadModel(await readFile(path.resolve('models', entry.file)));
});
after(async () => { model?.dispose(); await browser?.close(); srv?.server.close(); });

const matrixShape = (page) => page.$$eval('#alignment tbody tr', (trs) => [trs.length, trs[0]?.querySelectorAll('td[data-col]').length ?? 0]);

test('English pronunciation: a word in any case plays to the package\'s phonemes, with IPA', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  assert.deepEqual(await panelErrors(page), []);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en') && !document.getElementById('play').disabled);
  const shown = await page.$$eval('#examples button.chip', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(shown, entry.examples);
  for (const word of ['Knight', 'PHOENIX', entry.examples[1]]) {
    await page.fill('#source', word);
    await runToEnd(page);
    const r = model.translate(word, entry.decode);   // the page decodes with index.json's options
    assert.equal(r.text, model.translate(word.toLowerCase(), entry.decode).text, 'the model reads any letter case alike');
    assert.equal(await page.textContent('#output'), r.text, word);
    assert.deepEqual(await matrixShape(page), [r.rows, word.length], `${word}: a row per phoneme (and EOS), a column per letter`);
    assert.equal(await page.textContent('#ipa-note'), `IPA /${toIPA(r.text)}/`);
  }
  // The step inspector for the first phoneme shows the package's step() numbers.
  await page.click('#alignment tbody tr[data-row="0"] .row-btn');
  await page.waitForSelector('#inspector-body[data-step="0"]');
  const dec = model.decoder(model.encode(entry.examples[1]), { ...entry.decode, topk: 5 });
  const s = dec.step();
  const weights = await page.$$eval('#inspector-body [data-kind="weight"]', (els) => els.map((e) => Number(e.dataset.value)));
  assert.equal(weights.length, s.attention.length);
  weights.forEach((w, i) => assert.ok(Math.abs(w - s.attention[i]) < 1e-6, `weight ${i}`));
  dec.dispose();
  // Beam search lists the package's hypotheses.
  await page.fill('#beam-size', '5');
  await page.click('#beam-run');
  const beam = model.translate(entry.examples[1], { ...entry.decode, beam: 5 });
  await page.waitForFunction((n) => document.querySelectorAll('#beam-results > li').length === n, beam.hypotheses.length);
  const texts = await page.$$eval('#beam-results > li .hyp-text', (els) => els.map((e) => e.textContent));
  assert.deepEqual(texts, beam.hypotheses.map((h) => h.text));
  // The compare view finishes with no error for a model that is the only one of its task.
  await page.waitForFunction(() => document.getElementById('compare').dataset.state === 'done');
  assert.equal(await page.locator('#compare-errors li').count(), 0);
  await page.evaluate(() => document.getElementById('watch').scrollIntoView());
  await page.screenshot({ path: path.join(OUT, 'demo-g2p.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a long word does not loop on the page: it decodes with index.json\'s repetition guard', async () => {
  const LONG = 'supercalifragilisticexpialidocious';
  assert.ok(entry.decode?.noRepeatNgram > 0, 'g2p-en has a repetition guard in models/index.json');
  const loop = model.translate(LONG), guarded = model.translate(LONG, entry.decode);
  assert.ok(guarded.rows < loop.rows, `unguarded ${loop.rows} rows, guarded ${guarded.rows}`);
  const { page } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en') && !document.getElementById('play').disabled);
  await page.fill('#source', LONG);
  await runToEnd(page);
  assert.equal(await page.textContent('#output'), guarded.text);
  assert.deepEqual(await matrixShape(page), [guarded.rows, LONG.length]);
  await page.close();
});

test('a word in the model\'s dictionary (CMUdict) is marked as a dictionary entry, with the model\'s answer beside it', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en') && !document.getElementById('play').disabled);
  const model2 = model;
  for (const [word, entryPron] of [['colonel', 'K ER N AH L'], ['knight', 'N AY T']]) {
    await page.fill('#source', word);
    await runToEnd(page);
    await page.waitForFunction(() => !document.getElementById('lexicon-note').hidden);
    const note = await page.textContent('#lexicon-note');
    assert.ok(note.startsWith(`Dictionary entry (${entry.lexicon.title}): ${entryPron} /`), note);
    const said = model2.translate(word, entry.decode).text;
    assert.ok(note.endsWith(said === entryPron ? 'The model agrees.' : `The model says ${said}.`), note);
  }
  // A word the dictionary lacks has no such line.
  await page.fill('#source', 'zqxvb');
  await runToEnd(page);
  assert.equal(await page.isHidden('#lexicon-note'), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('text of several words: each word listed with its pronunciation (the dictionary\'s first), digits and punctuation as written, the picked word watched', async () => {
  const { pronounce } = await import('../../wasm/pronounce.js');
  const { parseLexicon } = await import('../../wasm/pronounce.js');
  const { gunzipSync } = await import('node:zlib');
  const lexicon = parseLexicon(gunzipSync(await readFile(path.resolve('models', entry.lexicon.file))).toString('utf8'), entry.lexicon.file);
  const TEXT = 'Knight zqxvb, 2024!';
  const want = pronounce(model, TEXT, { ...entry.decode, lexicon });
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'g2p-en');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('g2p-en') && !document.getElementById('play').disabled);
  await page.fill('#source', TEXT);
  // The line of words, once the dictionary is read: the words as buttons, the rest as written.
  await page.waitForFunction(() => document.querySelectorAll('#words .word-says.lexicon').length === 1);
  const words = await page.$$eval('#words .word', (bs) => bs.map((b) => [b.querySelector('.word-text').textContent, b.querySelector('.word-says').textContent, b.title]));
  const wordParts = want.parts.filter((p) => p.word);
  assert.deepEqual(words.map((w) => w[0]), wordParts.map((p) => p.text));
  wordParts.forEach((p, i) => {
    assert.equal(words[i][1], `/${p.ipa}/`, p.text);
    assert.ok(words[i][2].startsWith(`${p.phonemes} /${p.ipa}/ (${p.source === 'lexicon' ? 'the dictionary' : 'the model'})`), words[i][2]);
  });
  assert.deepEqual(wordParts.map((p) => p.source), ['lexicon', 'model']);
  const gaps = await page.$$eval('#words .words-gap', (ss) => ss.map((s) => s.textContent));
  assert.deepEqual(gaps, want.parts.filter((p) => !p.word).map((p) => p.text));
  // The watched decode is the first word's: a column per letter of it, the package's phonemes.
  await runToEnd(page);
  const first = model.translate('Knight', entry.decode);
  assert.equal(await page.textContent('#output'), first.text);
  assert.deepEqual(await matrixShape(page), [first.rows, 'Knight'.length]);
  // Picking the second word watches it (it plays), and the link remembers the pick.
  await page.click('#words .word[data-word="1"]');
  const second = model.translate('zqxvb', entry.decode);
  await page.waitForFunction((t) => document.getElementById('output').textContent === t && document.getElementById('watch').dataset.state === 'done', second.text);
  assert.deepEqual(await matrixShape(page), [second.rows, 'zqxvb'.length]);
  assert.equal(await page.getAttribute('#words .word[data-word="1"]', 'aria-pressed'), 'true');
  await page.screenshot({ path: path.join(OUT, 'demo-g2p-words.png') });
  // The link is written a moment after each change, during the decode too: wait for the one of the
  // decode's end (all its steps), which is the link a reader would copy.
  await page.waitForFunction((n) => {
    const p = new URLSearchParams(location.hash.slice(1));
    return p.get('word') === '1' && p.get('steps') === String(n);
  }, second.rows);
  assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get('input'), TEXT);
  // Opened elsewhere, the link watches the same word.
  const other = await browser.ctx.newPage();
  await other.emulateMedia({ reducedMotion: 'reduce' });
  await other.goto(page.url());
  // The output's text is whole one step before the end-of-sentence row is drawn: wait for the end.
  await other.waitForFunction((t) => document.getElementById('output').textContent === t && document.getElementById('watch').dataset.state === 'done', second.text);
  assert.deepEqual(await matrixShape(other), [second.rows, 'zqxvb'.length]);
  assert.equal(await other.getAttribute('#words .word[data-word="1"]', 'aria-pressed'), 'true');
  await other.close();
  // Text with no word at all has nothing to pronounce: no phonemes for digits.
  await page.fill('#source', '2024, 42');
  await page.waitForFunction(() => !document.getElementById('words').hidden && !document.querySelector('#words .word'));
  assert.match(await page.textContent('#words'), /^Nothing here to pronounce: digits, spaces and punctuation stay as written/);
  assert.equal(await page.isDisabled('#play'), true);
  // One word (a trailing space aside) needs no line.
  await page.fill('#source', 'knight ');
  await page.waitForFunction(() => document.getElementById('words').hidden);
  await runToEnd(page);
  assert.equal(await page.textContent('#output'), model.translate('knight', entry.decode).text);
  assert.deepEqual(problems, []);
  await page.close();
});
