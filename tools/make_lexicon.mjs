// Writes models/g2p-en.lexicon.tsv.gz, g2p-en's default lexicon: every entry of CMUdict as this
// repository holds it (data/cmudict/g014b2b.train and g014b2b.ref, the standard split's two halves,
// WORD<TAB>PHONEMES with the stress digits removed; a test word's several references, a line each), sorted by word (a word's pronunciations in their
// files' order), gzip level 9. The same input gives the same bytes.
//   node tools/make_lexicon.mjs [--check]   (--check: exit 1 if the committed file differs)
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync, gunzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'models/g2p-en.lexicon.tsv.gz');

export function lexiconText() {
  // A line of g014b2b.ref may give a word several pronunciations, tab-separated: a line each here.
  const lines = ['g014b2b.train', 'g014b2b.ref'].flatMap((f) =>
    readFileSync(path.join(ROOT, 'data/cmudict', f), 'utf8').split('\n').filter((l) => l.trim() !== '')
      .flatMap((l) => { const [w, ...prons] = l.split('\t'); return prons.map((p) => `${w}\t${p}`); }));
  const word = (l) => l.slice(0, l.indexOf('\t'));
  const seen = new Set();
  const unique = lines.filter((l) => !seen.has(l) && seen.add(l));
  // Array.prototype.sort is stable: a word's pronunciations keep their order.
  unique.sort((a, b) => (word(a) < word(b) ? -1 : word(a) > word(b) ? 1 : 0));
  return `${unique.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = lexiconText();
  if (process.argv.includes('--check')) {
    const same = gunzipSync(readFileSync(OUT)).toString('utf8') === text;
    console.log(same ? `${path.relative(ROOT, OUT)} is CMUdict's ${text.split('\n').length - 1} entries` : `${path.relative(ROOT, OUT)} differs: run node tools/make_lexicon.mjs`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(OUT, gzipSync(Buffer.from(text, 'utf8'), { level: 9 }));
  console.log(`${path.relative(ROOT, OUT)}: ${text.split('\n').length - 1} entries, ${readFileSync(OUT).length} bytes`);
}
