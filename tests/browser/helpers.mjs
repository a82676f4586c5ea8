// Shared browser-test plumbing: the demo server on a free port and a headless Chromium
// (Debian's /usr/bin/chromium through playwright-core, with the flags a closed network needs).
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createServer } from '../../scripts/serve.mjs';

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
