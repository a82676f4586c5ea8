// The dates model on the demo page in real Chromium: its example chips include a capitalised and a
// European (day-first) form, and each decodes to the ISO date the input means (read here by a small
// independent parser, not by the model); an output that names no real day (forced with a prefix to
// "2013-02-3…") gets a visible note next to the output, and a real date gets none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo, panelErrors, runToEnd, pickModel } from './helpers.mjs';

const manifest = JSON.parse(await readFile(path.resolve('models/index.json'), 'utf8')).models;
const chips = manifest.find((m) => m.id === 'dates').examples;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const CAPITALISED = /^([A-Z]{3,9}) (\d{1,2}),? (\d{4})$/;        // JUL 21, 2015
const EUROPEAN = /^(\d{1,2})[.-](\d{1,2})[.-](\d{4})$/;          // 14.08.2004: day first
const pad = (n) => String(n).padStart(2, '0');
function meaning(text) {
  let m = CAPITALISED.exec(text);
  if (m) return `${m[3]}-${pad(MONTHS.indexOf(m[1].slice(0, 3).toLowerCase()) + 1)}-${pad(m[2])}`;
  m = EUROPEAN.exec(text);
  if (m) return `${m[3]}-${pad(m[2])}-${pad(m[1])}`;
  return null;
}

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

async function openDates() {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  assert.deepEqual(await panelErrors(page), [], 'both panels load on the demo page');
  await pickModel(page, 'dates');
  return { page, problems };
}

test('the dates chips show a capitalised and a European form, and each decodes to its ISO date', async () => {
  const capitalised = chips.filter((c) => CAPITALISED.test(c)), european = chips.filter((c) => EUROPEAN.test(c));
  assert.ok(capitalised.length >= 1, `a capitalised chip in models/index.json: ${chips.join(' | ')}`);
  assert.ok(european.length >= 1, `a European chip in models/index.json: ${chips.join(' | ')}`);
  const { page, problems } = await openDates();
  const shown = await page.$$eval('#examples button.chip', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(shown, chips, 'the page shows the manifest\'s chips');
  for (const text of [...capitalised, ...european]) {
    await page.click(`#examples button.chip[aria-label="Use example: ${text}"]`);
    assert.equal(await page.inputValue('#source'), text);
    await runToEnd(page);
    assert.equal(await page.textContent('#output'), meaning(text), text);
    assert.equal(await page.isVisible('#date-note'), false, `no note for ${text}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('an output that is not a calendar date gets a visible note next to it', async () => {
  const { page, problems } = await openDates();
  await page.fill('#source', '30 February 2013');
  await page.fill('#prefix', '2013-02-3');  // whatever follows, day 3x of February is no real day
  await runToEnd(page);
  const out = await page.textContent('#output');
  assert.ok(out.startsWith('2013-02-3'), out);
  assert.ok(await page.isVisible('#date-note'), 'the note is shown');
  const note = await page.textContent('#date-note');
  assert.match(note, /not a calendar date/i);
  assert.ok(note.includes(out), `${note} names ${out}`);
  assert.ok(await page.$eval('#date-note', (n) => n.closest('.out-line') === document.getElementById('output').closest('.out-line')),
    'the note sits on the output line');
  // Without the forced prefix the model writes a real date, and the note goes away.
  await page.fill('#prefix', '');
  await page.fill('#source', '28 February 2013');
  await runToEnd(page);
  assert.equal(await page.textContent('#output'), '2013-02-28');
  assert.equal(await page.isVisible('#date-note'), false);
  assert.deepEqual(problems, []);
  await page.close();
});
