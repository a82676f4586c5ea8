// The demo page's controls in real Chromium (issue 9), one test per item: unknown source words
// marked and warned about; a prefix with an unknown token refused, naming it; keyboard focus never on
// <body>; a speed change applied at once (Playwright's fake clock: no real waits); a refused
// checkpoint explained beside the file input on a phone; an empty input disables the player;
// dropdowns wide enough for their options; ◎ buttons at least 24 x 24 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { demoSuite, OUT, runToEnd, pickModel } from './helpers.mjs';

const suite = demoSuite();
const { model, open } = suite;
const pick = pickModel;
const rows = (page) => page.locator('#alignment tbody tr').count();
const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return { tag: a.tagName, id: a.id, disabled: !!a.disabled, look: a.matches('#inspector-body .look') ? a.closest('tr').dataset.i : null };
});
/** Positions of the source pieces the package's tokenizer maps to <unk>. */
const unknownOf = (m, text) => {
  const t = m.tokenize(text);
  return t.tokens.flatMap((tok, i) => (t.ids[i] === m.config.unk ? [i] : []));
};

test('item 2: unknown source words are marked in the matrix and the inspector; a mostly unknown input is warned about', async () => {
  const { page, problems } = await open();
  const m = await model('en-ko');
  const SRC = 'Jane bought a xylophone in Zürich';
  const unk = unknownOf(m, SRC);
  assert.ok(unk.length >= 2 && unk.length < 6 && !unk.includes(0), `the package reads some words of "${SRC}" as <unk>: ${unk}`);
  const words = m.tokenize(SRC).tokens;
  await pick(page, 'en-ko', SRC);
  // Before decoding, the note under the input names the unknown words and only them.
  assert.ok(await page.isVisible('#source-note'), 'a note about unknown words is shown');
  const note = await page.textContent('#source-note');
  for (const [i, w] of words.entries()) assert.equal(note.includes(`“${w}”`), unk.includes(i), `note names “${w}” iff unknown: ${note}`);
  await runToEnd(page);
  // The matrix header: unknown columns carry the mark (class, a visible "?" and the accessible name).
  const head = await page.$$eval('#alignment thead th[data-col]', (ths) => ths.map((th) => ({
    unk: th.classList.contains('unk'), after: getComputedStyle(th, '::after').content, label: th.getAttribute('aria-label'),
    deco: getComputedStyle(th).textDecorationStyle,
  })));
  assert.equal(head.length, words.length);
  head.forEach((c, i) => {
    const want = unk.includes(i);
    assert.equal(c.unk, want, `column ${i} (${words[i]}) marked iff unknown`);
    assert.equal(c.after.includes('?'), want, `column ${i}: visible "?" iff unknown (${c.after})`);
    assert.equal(/unknown/.test(c.label), want, `column ${i}: accessible name says unknown iff unknown (${c.label})`);
  });
  assert.notEqual(head[unk[0]].deco, head[0].deco, 'an unknown column looks different from a known one');
  // The inspector's keys-and-values rows, for the last step and for step 1.
  for (const step of [null, 0]) {
    if (step !== null) {
      await page.click(`#alignment tbody tr[data-row="${step}"] .row-btn`);
      await page.waitForSelector(`#inspector-body[data-step="${step}"]`);
    }
    const marks = await page.$$eval('#inspector-body tr[data-i] > th', (ths) => ths.map((th) => th.classList.contains('unk') && /unknown/.test(th.getAttribute('aria-label'))));
    assert.deepEqual(marks, words.map((_, i) => unk.includes(i)), `inspector rows (step ${step ?? 'last'})`);
  }
  await page.locator('#watch').screenshot({ path: path.join(OUT, 'page-controls-unknown.png') });

  // Mostly unknown: a warning. All known: no note.
  const most = 'xylophone quokka Zürich Jane';
  assert.ok(unknownOf(m, most).length * 2 > m.tokenize(most).ids.length);
  await page.fill('#source', most);
  await page.waitForFunction(() => document.getElementById('source-note').classList.contains('warn'));
  assert.match(await page.textContent('#source-note'), /Most of this input \(3 of 4 words\) is unknown to this model/);
  await page.fill('#source', 'Jane went to the store');
  assert.ok(await page.isHidden('#source-note'), 'no note when every word is known');
  // A character model names the characters it lacks.
  const dates = await model('dates');
  const en = 'Jane went to the zoo';  // the dates model knows every letter of the month and weekday names, in either case, but no z
  const missing = [...new Set(unknownOf(dates, en).map((i) => dates.tokenize(en).tokens[i]))];
  assert.ok(missing.length > 0);
  await pick(page, 'dates', en);
  const dn = await page.textContent('#source-note');
  for (const ch of missing) assert.ok(dn.includes(`“${ch}”`), `the dates note names “${ch}”: ${dn}`);
  assert.deepEqual(problems, []);
});

test('item 3: a forced prefix with a token the model cannot output is refused, naming it', async () => {
  const { page, problems } = await open();
  const m = await model('en-ko');
  await pick(page, 'en-ko', 'Jane went to the store');
  for (const [prefix, bad, good] of [['banana', ['banana'], []], ['톰이 banana', ['banana'], ['톰이']]]) {
    await page.fill('#prefix', prefix);
    await page.waitForFunction(() => !document.getElementById('prefix-error').hidden);
    const msg = await page.textContent('#prefix-error');
    for (const t of bad) assert.ok(msg.includes(`“${t}”`), `names ${t}: ${msg}`);
    for (const t of good) assert.ok(!msg.includes(`“${t}”`), `does not blame ${t}: ${msg}`);
    for (const id of ['#encode', '#play', '#step', '#run']) assert.ok(await page.isDisabled(id), `${id} disabled`);
    await page.press('#prefix', 'Enter');
    assert.equal(await rows(page), 0, 'nothing was decoded');
    assert.ok(!(await page.textContent('#output')).includes('<unk>'));
  }
  // A known prefix: the message goes and the prefix is forced.
  await page.fill('#prefix', '톰이');
  assert.ok(await page.isHidden('#prefix-error'));
  await runToEnd(page);
  assert.equal(await page.textContent('#output'), m.translate('Jane went to the store', { prefix: '톰이' }).text);
  assert.deepEqual(problems, []);
});

test("a bad prefix's message says what the model outputs: phonemes for g2p-en, characters for dates, words for en-ko, with valid ones", async () => {
  const { page, problems } = await open();
  for (const [id, source, prefix, kind, valid] of [['g2p-en', 'knight', 'xyz', 'ARPAbet phonemes, separated by spaces', 'AA'],
    ['dates', '3 March 2018', 'Q', 'characters,', '0'], ['en-ko', 'Jane went to the store', 'banana', 'words, separated by spaces', null]]) {
    await pick(page, id, source);
    await page.fill('#prefix', prefix);
    await page.waitForFunction(() => !document.getElementById('prefix-error').hidden);
    const msg = await page.textContent('#prefix-error');
    assert.ok(msg.includes(`Its outputs are ${kind}`), `${id}: ${msg}`);
    if (valid) assert.ok(msg.includes(`“${valid}”`), `${id} quotes a valid token: ${msg}`);
    const m = await model(id);
    const quoted = [...msg.slice(msg.indexOf('such as')).matchAll(/“([^”]+)”/g)].map((x) => x[1]);
    assert.ok(quoted.length > 0, `${id}: ${msg}`);
    for (const t of quoted) assert.ok(m.tgtVocab.includes(t), `${id}: “${t}” is a target token`);
    if (id === 'g2p-en') assert.ok(!/character/.test(msg), `g2p-en's targets are not characters: ${msg}`);
    await page.fill('#prefix', '');
  }
  assert.deepEqual(problems, []);
});

test('item 4: keyboard focus stays on a control when Step or Run ends, when ◀ reaches step 1, and after ◎', async () => {
  const { page, problems } = await open();
  const r = (await model('en-ko')).translate('Jane went to the store');
  await pick(page, 'en-ko', 'Jane went to the store');
  await page.focus('#step');
  for (let i = 0; i < r.rows; i++) await page.keyboard.press('Enter');
  assert.equal(await rows(page), r.rows);
  assert.ok(await page.isDisabled('#step'));
  let f = await focused(page);
  assert.ok(f.tag === 'BUTTON' && !f.disabled, `after the last Step: ${JSON.stringify(f)}`);
  // Enter again acts on the focused control (↺ Restart): the matrix empties, Step works again.
  await page.keyboard.press('Enter');
  assert.equal(await rows(page), 0);
  await page.focus('#run');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  f = await focused(page);
  assert.ok(f.tag === 'BUTTON' && !f.disabled, `after Run to end: ${JSON.stringify(f)}`);

  await page.focus('#prev-step');
  for (let i = 1; i < r.rows; i++) await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('#inspector-body', 'data-step'), '0');
  assert.ok(await page.isDisabled('#prev-step'));
  f = await focused(page);
  assert.equal(f.id, 'next-step', `after ◀ reached step 1: ${JSON.stringify(f)}`);

  // ◎ on step 1, source token 3 ("the"), by keyboard: the re-decoded inspector keeps the focus on it.
  await page.focus('#inspector-body tr[data-i="3"] .look');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done' && document.querySelector('#alignment tr.edited'));
  f = await focused(page);
  assert.equal(f.look, '3', `after ◎: ${JSON.stringify(f)}`);
  assert.deepEqual(problems, []);
});

test('item 5: a faster speed applies to the step being waited for (fake clock)', async () => {
  const { page, problems } = await open();
  await pick(page, 'reverse', 'abcdefghijklmnopqrst');   // 21 steps: enough to change speed twice
  await page.clock.install();
  const setSpeed = (v) => page.evaluate((x) => {
    const s = document.getElementById('speed');
    s.value = String(x);
    s.dispatchEvent(new Event('input'));
  }, v);
  await setSpeed(1);
  assert.equal(await page.textContent('#speed-out'), '0.5 steps/s');
  await page.click('#play');
  assert.equal(await rows(page), 1, 'the first step runs at once');
  await page.clock.runFor(500);
  assert.equal(await rows(page), 1, 'at 0.5 steps/s the second step waits');
  await setSpeed(8);
  assert.equal(await page.textContent('#speed-out'), 'as fast as possible');
  await page.clock.runFor(100);
  assert.ok(await rows(page) >= 2, `100 ms after switching to the fastest speed the next row is there (rows: ${await rows(page)})`);
  // Slowing down again takes effect for the next wait, too: no row for 1.5 s at 0.5 steps/s.
  await setSpeed(1);
  const n = await rows(page);
  await page.clock.runFor(1500);
  assert.equal(await rows(page), n);
  await page.clock.runFor(600);
  assert.equal(await rows(page), n + 1);
  await page.click('#play');   // pause
  assert.deepEqual(problems, []);
});

test('item 6: on a phone a refused checkpoint is explained beside the file input; model line kept, picker cleared', async () => {
  const { page, problems } = await open({ width: 375, height: 800 });
  await pick(page, 'en-ko', 'Jane went to the store');
  const info = await page.textContent('#model-info');
  assert.match(info, /en-ko\.safetensors/);
  const good = await readFile(path.resolve('tests/data/parity/gru_luong_dot.safetensors'));
  const bad = Buffer.from(good);
  bad.writeBigUInt64LE(10644932802451934580n, 0);      // the header length of the report
  await page.setInputFiles('#file', { name: 'broken.safetensors', mimeType: 'application/octet-stream', buffer: bad });
  await page.waitForFunction(() => !document.getElementById('file-error').hidden);
  const box = await page.locator('#file-error').boundingBox();
  assert.ok(box.y >= 0 && box.y + box.height <= 800, `the message is inside the 375 x 800 viewport: ${JSON.stringify(box)}`);
  const plain = await page.textContent('#file-error > p');
  assert.match(plain, /broken\.safetensors/);
  assert.doesNotMatch(plain, /BAD_CHECKPOINT|header length|\d{6,}/, `plain wording: ${plain}`);
  assert.ok(await page.isHidden('#file-error details code'), 'the details start folded');
  await page.click('#file-error summary');
  assert.match(await page.textContent('#file-error details code'), /BAD_CHECKPOINT: .*header length 10644932802451934580/);
  assert.ok(await page.isVisible('#file-error details code'));
  assert.equal(await page.textContent('#model-info'), info, 'the model line describes the model still in use');
  assert.deepEqual(await page.$eval('#file', (f) => [f.value, f.files.length]), ['', 0], 'the file input is cleared');
  assert.equal(await page.inputValue('#model'), 'en-ko');
  assert.equal(await page.textContent('#error'), '');
  await page.screenshot({ path: path.join(OUT, 'page-controls-375-bad-file.png') });

  // Dropped at the bottom of the page: the message is scrolled into view.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.evaluate((b) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], 'truncated.safetensors'));
    for (const type of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, Array.from(good.subarray(0, good.length - 100)));
  await page.waitForFunction(() => /truncated/.test(document.getElementById('file-error').textContent));
  const box2 = await page.locator('#file-error').boundingBox();
  assert.ok(box2.y >= 0 && box2.y + box2.height <= 800, `dropped: the message is in view: ${JSON.stringify(box2)}`);
  // A good file afterwards clears the message and is used.
  await page.setInputFiles('#file', { name: 'good.safetensors', mimeType: 'application/octet-stream', buffer: good });
  await page.waitForFunction(() => document.getElementById('model').value === 'user:good.safetensors' && !document.getElementById('play').disabled);
  assert.ok(await page.isHidden('#file-error'));
  assert.deepEqual(problems, []);
});

test('item 7: an empty or whitespace-only input disables Encode, Play, Step and Run', async () => {
  const { page, problems } = await open();
  await pick(page, 'en-ko', 'Jane went to the store');
  await runToEnd(page);
  const out = await page.textContent('#output');
  for (const text of ['', '   ', ' \t  ']) {
    await page.fill('#source', text);
    for (const id of ['#encode', '#play', '#step', '#run', '#restart']) assert.ok(await page.isDisabled(id), `${id} disabled for ${JSON.stringify(text)}`);
    assert.match(await page.textContent('#source-note'), /Type an input/);
    await page.press('#source', 'Enter');
    assert.equal(await page.textContent('#error'), '', 'no raw BAD_INPUT');
    assert.equal(await page.textContent('#output'), out);
  }
  await page.fill('#source', 'Tom ate an apple');
  for (const id of ['#encode', '#play', '#step', '#run']) assert.ok(await page.isEnabled(id), `${id} enabled again`);
  assert.ok(await page.isHidden('#source-note'));
  assert.deepEqual(problems, []);
});

test('item 9: dropdowns show their longest option at 1280 px; the ◎ buttons are at least 24 x 24 px', async () => {
  const { page, problems } = await open({ width: 1280, height: 900 });
  // A select is wide enough when it is at least as wide as it is on its own (position: absolute,
  // width: auto: its longest option, padding and arrow), measured on the element with its own rules.
  const widths = await page.$$eval('#model, #train-panel select', (sels) => sels.map((sel) => {
    const has = sel.offsetWidth;
    const saved = sel.style.cssText;
    for (const [k, v] of [['position', 'absolute'], ['width', 'auto'], ['min-width', '0'], ['max-width', 'none']]) sel.style.setProperty(k, v, 'important');
    const needs = sel.offsetWidth;
    sel.style.cssText = saved;
    const longest = [...sel.options].reduce((a, o) => (o.text.length > a.length ? o.text : a), '');
    return { name: sel.id || sel.name, has, needs, longest };
  }));
  assert.ok(widths.length >= 6, `the model picker and the training selects: ${widths.map((w) => w.name)}`);
  for (const w of widths) assert.ok(w.has >= w.needs, `${w.name}: ${w.has} px wide, needs ${w.needs} px for “${w.longest}”`);
  await page.close();

  for (const width of [1280, 375]) {
    const { page: p, problems: more } = await open({ width, height: 900 });
    await pick(p, 'en-ko', 'Jane went to the store');
    await runToEnd(p);
    const boxes = await p.$$eval('#inspector-body .look', (els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.width, r.height]));
    assert.equal(boxes.length, 5);
    for (const [w, hgt] of boxes) assert.ok(w >= 24 && hgt >= 24, `◎ at ${width} px is ${w} x ${hgt}`);
    problems.push(...more);
    await p.close();
  }
  assert.deepEqual(problems, []);
});
