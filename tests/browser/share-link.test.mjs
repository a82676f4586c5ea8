// A shareable link (issue 26, item 4), in real Chromium: the URL's hash follows the page (the model,
// the input, the steps decoded, the step inspected, the beam width and a what-if edit), and opening
// that URL in a new tab restores the same view: the same matrix, the same inspected step, the same beam
// results. A link to a model the page does not have says so and opens on the first model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openDemo } from './helpers.mjs';

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const view = (page) => page.evaluate(() => ({
  model: document.getElementById('model').value,
  input: document.getElementById('source').value,
  output: document.getElementById('output').textContent,
  rows: Array.from(document.querySelectorAll('#alignment tbody tr'), (tr) => Array.from(tr.querySelectorAll('td[data-weight]'), (td) => td.dataset.weight).join(' ')),
  inspected: document.getElementById('inspector-title').textContent,
  beam: Array.from(document.querySelectorAll('#beam-results > li .hyp-text'), (e) => e.textContent),
}));

test('the URL follows the page, and opening it restores the view (model, input, steps, inspected step, beam, what-if)', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.selectOption('#model', 'en-ko');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.startsWith('en-ko.safetensors'));
  await page.fill('#source', 'Tom ate an apple at the park');
  await page.fill('#beam-size', '4');
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
  await page.waitForFunction(() => document.getElementById('beam').dataset.state === 'done');
  // A what-if: step 2 looks only at "park" (source token 6), then step 1 is inspected.
  await page.click('#alignment tbody tr[data-row="1"] .row-btn');
  await page.waitForSelector('#inspector-body[data-step="1"]');
  await page.locator('#inspector-body .look').nth(6).click();
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done' && !document.getElementById('whatif-note').hidden);
  await page.waitForFunction(() => document.getElementById('beam').dataset.state === 'done');
  await page.click('#alignment tbody tr[data-row="0"] .row-btn');
  await page.waitForFunction(() => /edits=1\.6\.1/.test(location.hash) && /step=1(&|$)/.test(location.hash) && /beam=4/.test(location.hash));
  const url = page.url();
  const p = new URLSearchParams(new URL(url).hash.slice(1));
  assert.equal(p.get('model'), 'en-ko');
  assert.equal(p.get('input'), 'Tom ate an apple at the park');
  const before = await view(page);
  assert.ok(before.rows.length >= 3);

  const other = await browser.ctx.newPage();
  await other.emulateMedia({ reducedMotion: 'reduce' });
  await other.setViewportSize({ width: 1280, height: 900 });
  await other.goto(url);
  await other.waitForFunction(() => document.getElementById('watch').dataset.state === 'done' && document.getElementById('beam').dataset.state === 'done');
  await other.waitForSelector('#inspector-body[data-step="0"]');
  assert.deepEqual(await view(other), before, 'the same view');
  assert.equal(await other.isHidden('#whatif-note'), false, 'the what-if is restored and explained');
  await other.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test('a link to a model the page does not have says so and opens on the first model', async () => {
  const page = await browser.ctx.newPage();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${srv.base}/web/#model=g2p-xx&input=abc`);
  await page.waitForFunction(() => !document.getElementById('play').disabled);
  assert.match(await page.textContent('#error'), /names the model “g2p-xx”, which this page does not have/);
  assert.equal(await page.inputValue('#model'), 'en-de');
  await page.close();
});
