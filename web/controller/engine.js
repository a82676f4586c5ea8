// Whole translations off the main thread: the compare and beam views, the what-if note's output
// without edits and the prefix hint are translated in the engine Worker (web/worker.js, through
// web/train/client.js); only the watched step-by-step decode runs on the page. A wide beam over a
// long input takes the engine longer than a frame (beam 16 over 300 characters: over 100 ms).
// Interface: translateInWorker(entry, input, options, finalState).
import { modelURL } from './catalog.js';

// One Worker for the page's translations (the panels have their own). Its client module is imported
// when first needed, so that the page does not wait for it; concurrent first calls share one.
let client = null;
const engine = () => (client ??= import('../train/client.js').then((m) => new m.EngineClient(), (e) => { client = null; throw e; }));

/**
 * Model.translate(input, options) of the entry's model, in the Worker, which loads the model itself:
 * a shipped one from its URL, a user's from the bytes it was loaded from (kept there under
 * entry.key, which a replaced model does not share). finalState: also return h_T (as finalState).
 * Rejects with the package's error code (or WORKER when the Worker cannot run).
 */
export async function translateInWorker(entry, input, options = {}, finalState = false) {
  const source = entry.files?.length > 1 ? { urls: entry.files.map((_, i) => modelURL(entry, i).href) }
    : entry.file ? { url: modelURL(entry).href } : { key: entry.key, bytes: entry.source };
  return (await engine()).call('translate', { source, input, options, finalState });
}
