// The relaxed-SIMD products in Chromium, which compiles relaxed SIMD by default: the package installs
// them after the engine's check (buildInfo() says so), the shipped g2p-en and en-fr give the answers
// Node's plain products give, and each source of a batch has the bits it has alone; with
// init({ relaxedSimd: false }) the page runs the plain products and never asks for the module.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watch } from './helpers.mjs';
import { loadModel } from '../../wasm/attnseq.js';

const WORDS = ['attention', 'supercalifragilistic', 'colonel', 'pronunciation', 'a', 'xylophone', 'seoul', 'nguyen'];
const SENTENCES = ['A man in a red shirt is riding a bike.', 'Two dogs play in the snow.', 'Jane went to the store.'];
let srv, browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

// In a blank page of the server (tests/browser/pages/blank.html): the package, init(options), and both models' beam-5 answers.
async function run(options) {
  const page = await browser.ctx.newPage();
  const problems = watch(page);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(`${srv.base}/tests/browser/pages/blank.html`);
  const r = await page.evaluate(async ({ options, words, sentences }) => {
    const mod = await import('/wasm/attnseq.js');
    await mod.init(options);
    const answers = async (file, inputs) => {
      const m = await mod.loadModel(`/models/${file}`);
      const alone = inputs.map((x) => m.translate(x, { beam: 5 }));
      const batch = m.translateBatch(inputs, { beam: 5 });
      const bits = (a) => Array.from(new Uint8Array(a.attention.buffer)).join(',');
      const same = alone.every((a, i) => a.text === batch[i].text && a.score === batch[i].score && bits(a) === bits(batch[i]));
      m.dispose();
      return { texts: alone.map((a) => a.text), same };
    };
    return { info: await mod.buildInfo(), g2p: await answers('g2p-en.safetensors', words), fr: await answers('en-fr.safetensors', sentences) };
  }, { options, words: WORDS, sentences: SENTENCES });
  await page.close();
  return { ...r, requests, problems };
}

test('Chromium runs the relaxed products: the plain answers, and a batch row has its bits alone', async () => {
  const r = await run({});
  assert.match(r.info, /; products: relaxed SIMD$/);
  assert.ok(r.requests.includes('/dist/attnseq-relaxed.wasm'));
  assert.ok(r.g2p.same && r.fr.same, 'each source of a batch has the bits it has alone, on the relaxed path');
  const g2p = await loadModel('models/g2p-en.safetensors'), fr = await loadModel('models/en-fr.safetensors');
  assert.deepEqual(r.g2p.texts, WORDS.map((w) => g2p.translate(w, { beam: 5 }).text));
  assert.deepEqual(r.fr.texts, SENTENCES.map((s) => fr.translate(s, { beam: 5 }).text));
  g2p.dispose(); fr.dispose();
  assert.deepEqual(r.problems, []);
});

test('init({ relaxedSimd: false }) keeps the plain products in Chromium and never asks for the module', async () => {
  const r = await run({ relaxedSimd: false });
  assert.match(r.info, /; products: plain SIMD \(relaxed SIMD: turned off by init\(\{ relaxedSimd: false \}\)\)$/);
  assert.ok(!r.requests.includes('/dist/attnseq-relaxed.wasm'), r.requests.join(' '));
  assert.ok(r.g2p.same && r.fr.same);
  assert.deepEqual(r.problems, []);
});
