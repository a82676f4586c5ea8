// Whole translations for the compare and beam views run in the engine Worker (web/worker.js, through
// web/train/client.js): a wide beam over a long input takes the engine longer than a frame (beam 16
// over 300 characters: over 100 ms). Without a Worker they run here.
// Interface: translateInWorker(entry, input, options, finalState).
import { modelURL } from './catalog.js';

// One Worker for the page's translations (the panels have their own). Its client module is imported
// when first needed, so that the page does not wait for it; concurrent first calls share one.
let client = null;
const engine = () => (client ??= import('../train/client.js').then((m) => new m.EngineClient(), (e) => { client = null; throw e; }));

/**
 * Model.translate(input, options) of the entry's model, in the Worker, which loads the model itself:
 * a shipped one from its URL, a user's from the bytes it was loaded from. finalState: also return
 * h_T (as finalState).
 */
export async function translateInWorker(entry, input, options = {}, finalState = false) {
  const m = entry.model;
  const source = entry.file ? { url: modelURL(entry).href } : entry.source ? { bytes: entry.source } : null;
  if (source) {
    try {
      return await (await engine()).call('translate', { source, input, options, finalState });
    } catch (e) {
      if (e?.code !== 'WORKER' && e?.code !== 'TERMINATED' && !(e instanceof TypeError)) throw e;
    }
  }
  const r = m.translate(input, options);
  if (finalState) {
    const enc = m.encode(input);
    r.finalState = enc.memory().finalState;
    enc.dispose();
  }
  return r;
}
