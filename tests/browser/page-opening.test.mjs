// The page opens on what it is for (issue 26, item 2), in real Chromium: at 1280 x 900 the opening
// model plays its first example on its own and the matrix fills in view, with no scrolling; a visitor
// who asks the system for reduced motion gets no autoplay; at 390 x 844, pressing Play brings the
// matrix into view below the input; the introduction says what attention is in words before its
// symbols; the input's hint fits the model's task.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launch, openDemo, OUT } from './helpers.mjs';

let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const inView = (page, sel) => page.$eval(sel, (el) => {
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight && r.height > 0;
});

test('1280 x 900: the opening example plays on its own, and the matrix fills in view', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { motion: true });
  await page.waitForFunction(() => document.querySelectorAll('#alignment tbody tr').length >= 2, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => scrollY), 0, 'nothing scrolled');
  const first = await page.$eval('#examples button.chip', (b) => b.textContent);
  assert.equal(await page.inputValue('#source'), first, 'the first example is what plays');
  assert.ok(await inView(page, '#alignment thead'), 'the matrix\'s column labels are in view');
  assert.ok(await inView(page, '#alignment tbody tr:first-child'), 'its first row is in view');
  await page.screenshot({ path: path.join(OUT, 'page-opening-1280.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('reduced motion: nothing plays until the visitor asks', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('#alignment tbody tr').count(), 0);
  assert.equal(await page.$eval('#watch', (w) => w.dataset.state), 'idle');
  assert.deepEqual(problems, []);
  await page.close();
});

test('390 x 844: Play brings the matrix into view below the input', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base, { width: 390, height: 844 });
  const top = await page.$eval('#watch', (w) => w.getBoundingClientRect().top);
  assert.ok(top > 844, `the matrix starts below the fold on a phone (${top})`);
  await page.click('#play');
  await page.waitForFunction(() => document.querySelectorAll('#alignment tbody tr').length >= 1);
  await page.waitForFunction(() => { const r = document.getElementById('watch').getBoundingClientRect(); return r.top >= 0 && r.top < 100; });
  assert.ok(await inView(page, '#alignment thead'), 'the column labels are in view');
  await page.screenshot({ path: path.join(OUT, 'page-opening-390.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the introduction says what attention is in words before its symbols; hints fit the task', async () => {
  const { page, problems } = await openDemo(browser.ctx, srv.base);
  const lede = await page.$$eval('header .lede', (ps) => ps.map((p) => p.textContent.replace(/\s+/g, ' ').trim()));
  assert.match(lede[0], /that is attention/);
  assert.doesNotMatch(lede[0], /[=Σ]/, 'no formula in the first paragraph');
  assert.match(lede[1], /^In symbols: .*Q = Sk/);
  for (const [id, hint] of [['g2p-en', /^Type a word/], ['dates', /^Type a date/], ['en-de', /^Type a sentence/], ['reverse', /^Type a few letters/]]) {
    await page.selectOption('#model', id);
    await page.waitForFunction((x) => document.getElementById('model-info').textContent.startsWith(`${x}.safetensors`), id);
    assert.match(await page.textContent('#source-hint'), hint, id);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
