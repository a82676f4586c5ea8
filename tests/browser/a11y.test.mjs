// Accessibility checked, not assumed: axe-core (an npm dev dependency, injected into the page) runs on
// the demo after a decode has played to the end, in light and dark mode and at 375 px, and any
// violation of any rule fails the test, listed with the elements it was found on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { startServer, launch, openDemo, pickModel, runToEnd } from './helpers.mjs';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

async function violations(opts) {
  const { page, problems } = await openDemo(browser.ctx, srv.base, opts);
  await pickModel(page, 'en-ko', 'Jane went to the store');
  await runToEnd(page);
  // The state a person sees: the last row's arrival animation has finished.
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
  await page.evaluate(AXE);  // through DevTools, so the page's CSP (no inline scripts) stays as it is
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join(' ')}`) }));
  });
  assert.deepEqual(problems, []);
  await page.close();
  return found;
}

for (const [name, opts] of [['light, 1280 px', {}], ['dark, 1280 px', { dark: true }], ['light, 375 px', { width: 375, height: 800 }], ['dark, 375 px', { dark: true, width: 375, height: 800 }]]) {
  test(`axe-core finds no violation after a decode (${name})`, async () => {
    const v = await violations(opts);
    assert.deepEqual(v, [], JSON.stringify(v, null, 1));
  });
}
