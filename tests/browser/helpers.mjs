// Shared browser-test plumbing: the demo server on a free port, a headless Chromium (Debian's
// /usr/bin/chromium through playwright-core, with the flags a closed network needs), a watcher for
// console errors and failed requests, openDemo(): web/ opened with both panels mounted or failed, and
// demoSuite(): the setup a file of page tests shares.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createServer } from '../../scripts/serve.mjs';
import { loadModel } from '../../wasm/attnseq.js';

export const OUT = path.resolve('test-output/browser');

export async function startServer() {
  const server = createServer({ allow: ['tests'] });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

export async function launch() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attnseq-chromium-'));
  await mkdir(OUT, { recursive: true });
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { ctx, close: async () => { await ctx.close(); await rm(dir, { recursive: true, force: true }); } };
}

// Collects console errors, page errors and failed requests of a page.
export function watch(page) {
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return problems;
}

// The two panels web/app.js imports on its own, and the element each one adds when it has mounted.
export const PANELS = [['train-panel', '.ts-start'], ['length-study', '.ls-run']];

/**
 * Opens the demo page (web/) in a new tab and waits until a model is ready and each panel has either
 * mounted or shown its load error. opts.route(page) runs before navigation (request overrides). The
 * page asks for reduced motion unless opts.motion, so that it does not play its opening example on its
 * own while a test drives it.
 */
export async function openDemo(ctx, base, { width = 1280, height = 900, dark = false, route, motion = false } = {}) {
  const page = await ctx.newPage();
  const problems = watch(page);
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light', reducedMotion: motion ? 'no-preference' : 'reduce' });
  if (route) await route(page);
  await page.goto(`${base}/web/`);
  await page.waitForFunction(() => !document.getElementById('play').disabled);
  const settled = (panels) => panels.every(([id, mounted]) => document.querySelector(`#${id} ${mounted}, #${id} .panel-error`));
  try {
    await page.waitForFunction(settled, PANELS, { timeout: 20000, polling: 100 });
  } catch (e) {
    const empty = await page.evaluate((panels) => panels.filter(([id, mounted]) =>
      !document.querySelector(`#${id} ${mounted}, #${id} .panel-error`)).map(([id]) => id), PANELS);
    throw new Error(`panel(s) ${empty.join(', ')} neither mounted nor showed an error in 20 s (${e.message.split('\n')[0]}); problems: ${problems.join('; ')}`, { cause: e });
  }
  return { page, problems };
}

/** The visible "could not be loaded" messages of the panels, by panel id. */
export function panelErrors(page) {
  return page.$$eval('.panel-error', (els) => els.map((e) => ({ id: e.closest('section')?.id, text: e.textContent })));
}

/** Picks model `id` in the page's menu, waits until it is ready to play, and types `source` if given. */
export async function pickModel(page, id, source) {
  await page.selectOption('#model', id);
  await page.waitForFunction(() => !document.getElementById('play').disabled);
  if (source !== undefined) await page.fill('#source', source);
}

/** Runs the input to its end (the Run button) and waits for the last step. */
export async function runToEnd(page) {
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('watch').dataset.state === 'done');
}

/**
 * The setup of a file of page tests: a server and a Chromium for its tests (before / after), the
 * shipped models loaded in Node by id, once each and disposed at the end (suite.model(id), for the
 * package's answers to compare the page with), and suite.open(opts): the demo page (openDemo) with
 * both panels loaded, asserted.
 */
export function demoSuite() {
  const suite = { srv: null, browser: null };
  const models = new Map();
  before(async () => { suite.srv = await startServer(); suite.browser = await launch(); });
  after(async () => {
    for (const m of models.values()) m.dispose();
    await suite.browser?.close();
    suite.srv?.server.close();
  });
  suite.model = async (id) => {
    if (!models.has(id)) {
      const index = JSON.parse(await readFile(path.resolve('models/index.json'), 'utf8')).models;
      const file = index.find((m) => m.id === id)?.file ?? `${id}.safetensors`;
      models.set(id, await loadModel(await readFile(path.resolve('models', file))));
    }
    return models.get(id);
  };
  suite.open = async (opts = {}) => {
    const { page, problems } = await openDemo(suite.browser.ctx, suite.srv.base, opts);
    assert.deepEqual(await panelErrors(page), [], 'both panels load on the demo page');
    return { page, problems };
  };
  return suite;
}
