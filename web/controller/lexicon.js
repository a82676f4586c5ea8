// A pronunciation model's dictionary on the page (models/index.json's `lexicon`: g2p-en's CMUdict),
// read the first time a word is decoded with that model. When the typed word is in it, a line under
// the output says so, with the dictionary's pronunciation beside the model's: the matrix shows the
// model's answer, and a dictionary entry has no alignment of its own.
// Interface: lexiconNote(entry, text, output, done, redraw), lexiconMap(entry, redraw).
import { parseLexicon, toIPA } from '../../wasm/pronounce.js';

const maps = new Map();   // file -> { map } once read, { failed } after a failed read, or { pending }

function read(file, redraw) {
  const url = new URL(`../../models/${file}`, import.meta.url);
  const slot = { pending: true };
  maps.set(file, slot);
  (async () => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const text = await new Response(res.body.pipeThrough(new DecompressionStream('gzip'))).text();
    return parseLexicon(text, file);
  })().then((map) => { maps.set(file, { map }); redraw(); }, (e) => { maps.set(file, { failed: e.message }); redraw(); });
  return slot;
}

/**
 * The line for `text` decoded by the entry's model ('' for none): the dictionary's pronunciation(s)
 * of the word, and whether the model's finished `output` agrees. redraw() is called once the
 * dictionary has been read.
 */
export function lexiconNote(entry, text, output, done, redraw) {
  const lex = entry?.lexicon;
  const word = text.trim();
  if (!lex?.file || !word || /\s/.test(word)) return '';
  const slot = maps.get(lex.file) ?? read(lex.file, redraw);
  if (slot.failed) return `The dictionary (${lex.title}) could not be read: ${slot.failed}.`;
  if (!slot.map) return '';
  const prons = slot.map.get(word) ?? slot.map.get(word.toUpperCase()) ?? slot.map.get(word.toLowerCase());
  if (!prons) return '';
  const shown = prons.map((p) => { const ipa = toIPA(p); return ipa ? `${p} /${ipa}/` : p; }).join(' or ');
  const verdict = !done ? '' : prons.includes(output) ? ' The model agrees.' : ` The model says ${output}.`;
  return `Dictionary entry (${lex.title}): ${shown}. The matrix is the model's answer; an entry has no alignment of its own.${verdict}`;
}

/** The entry's dictionary as a Map once read (null before, or for a model without one); the first
 * call starts the read, and redraw() is called when it ends. */
export function lexiconMap(entry, redraw) {
  const file = entry?.lexicon?.file;
  if (!file) return null;
  const slot = maps.get(file) ?? read(file, redraw);
  return slot.map ?? null;
}
