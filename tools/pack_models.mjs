// Fills packages/attnseq-models/models/ from the repository's models/ (run by that package's prepack,
// so `npm pack` there makes the tarball): every file models/index.json lists, and catalog.json, which
// is index.json's entries with `files` always a list and `bytes`, each file's size.
//   node tools/pack_models.mjs
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'models');
const OUT = path.join(ROOT, 'packages/attnseq-models/models');
rmSync(OUT, { recursive: true, force: true });
const index = JSON.parse(readFileSync(path.join(SRC, 'index.json'), 'utf8'));
const copy = (f) => {
  mkdirSync(path.dirname(path.join(OUT, f)), { recursive: true });
  copyFileSync(path.join(SRC, f), path.join(OUT, f));
};
const models = index.models.map(({ file, files, ...rest }) => {
  const list = files ?? [file];
  list.forEach(copy);
  // A default lexicon (g2p-en's: CMUdict) travels with its licence, and is loaded only when asked for.
  if (rest.lexicon) {
    copy(rest.lexicon.file);
    copy(rest.lexicon.licence);
    rest.lexicon = { ...rest.lexicon, bytes: statSync(path.join(SRC, rest.lexicon.file)).size };
  }
  return { ...rest, files: list, bytes: list.map((f) => statSync(path.join(SRC, f)).size) };
});
writeFileSync(path.join(OUT, 'catalog.json'), `${JSON.stringify({ models }, null, 1)}\n`);

// The package README's table: each id, what it is and what it costs to download.
const readme = path.join(ROOT, 'packages/attnseq-models/README.md');
const text = readFileSync(readme, 'utf8');
const start = '<!-- models: written by tools/pack_models.mjs -->\n', end = '<!-- end models -->';
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const rows = models.map((m) => `| \`${m.id}\` | ${m.title.replaceAll('|', '\\|')} | ${m.files.length} | ${mb(m.bytes.reduce((a, b) => a + b, 0))} |`);
const table = `| id | model | files | download |\n|---|---|---|---|\n${rows.join('\n')}\n`;
const a = text.indexOf(start), b = text.indexOf(end);
if (a < 0 || b < a) throw new Error(`${readme} lacks the table's markers`);
writeFileSync(readme, text.slice(0, a + start.length) + table + text.slice(b));
const total = models.reduce((s, m) => s + m.bytes.reduce((a, b) => a + b, 0), 0);
console.error(`attnseq-models: ${models.length} models, ${(total / 1e6).toFixed(1)} MB, in ${path.relative(ROOT, OUT)}`);
