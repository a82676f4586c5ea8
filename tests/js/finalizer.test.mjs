// A forgotten dispose() does not leak for ever: handles the package returns are freed once their
// JavaScript objects are garbage-collected. Runs a child Node with --expose-gc (the collector must be
// driven), makes 5,000 encode + decoder + step without dispose(), and checks the wasm heap in use
// returns to its baseline; then that explicit dispose() still frees at once and unregisters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const API = new URL('../../wasm/attnseq.js', import.meta.url).href;
const MODEL = fileURLToPath(new URL('../../models/en-ko.safetensors', import.meta.url));

const CHILD = `
import { loadModel, memoryStats } from ${JSON.stringify(API)};
const settle = async () => {  // collect, then let the finalization callbacks run, a few rounds
  for (let i = 0; i < 8; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
};
const model = await loadModel(${JSON.stringify(MODEL)});
const work = (n) => { for (let i = 0; i < n; i++) { const enc = model.encode('Jane went to the store'); model.decoder(enc).step(); } };
work(50);  // warm-up: allocator free lists, Embind caches
await settle();
const base = (await memoryStats()).heapBytes;
work(5000);
const grown = (await memoryStats()).heapBytes;
await settle();
const after = (await memoryStats()).heapBytes;
// Explicit dispose frees at once and leaves nothing for the collector (which would double-free).
const enc = model.encode('Jane went to the store'); const dec = model.decoder(enc); dec.step();
dec.dispose(); enc.dispose();
await settle();
const disposed = (await memoryStats()).heapBytes;
console.log(JSON.stringify({ base, grown, after, disposed, text: model.translate('Jane went to the store').text }));
`;

test('5,000 encode + decoder + step without dispose() return the wasm heap to its baseline after GC', () => {
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], { encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(r.stdout.trim().split('\n').at(-1));
  // Each leaked encode + decoder holds kilobytes of engine state: without finalization the heap grows
  // by megabytes and never comes back.
  assert.ok(m.grown - m.base > 1e6, `the undisposed handles should hold memory before GC (grew ${m.grown - m.base} bytes)`);
  assert.ok(m.after - m.base <= 64 * 1024, `heap after GC is ${m.after - m.base} bytes above its baseline`);
  assert.ok(m.disposed - m.base <= 64 * 1024, `heap after explicit dispose is ${m.disposed - m.base} bytes above its baseline`);
  assert.equal(m.text, '제인이 가게에 갔다', 'the model still works');
  assert.equal(r.stderr, '', 'no warnings (a double free would print)');
});
