// The package's sizes, as README.md states them ("Package size ..."): `npm pack --json` of this
// checkout (tarball, unpacked, files) and each file's bytes and gzip -9 bytes, in KB (1000 bytes),
// rounded (a part of several files: their sums). Prints the sentence; --write puts it into README.md. tests/js/package.test.mjs checks that
// the README's figures are these, within 1 KB.
//   node tools/package_sizes.mjs [--write]      (needs dist/: scripts/build.sh)
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Each part: its files, and its name in the sentence. The wrapper is every wasm/*.js the package ships.
const WRAPPER = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).files.filter((f) => /^wasm\/.*\.js$/.test(f));
const FILES = [[['dist/attnseq-core.wasm'], '`attnseq-core.wasm`'], [['dist/attnseq-core.mjs'], 'its loader `attnseq-core.mjs`'],
  [WRAPPER, `the wrapper's ${WRAPPER.length} modules \`wasm/*.js\``]];
const kb = (n) => Math.round(n / 1000);

/** { tarball, unpacked, files, each: [[name in the sentence, bytes, gzipped]] } in bytes. */
export function measure() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-size-'));
  try {
    const [p] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    const each = FILES.map(([fs, name]) => {
      const bs = fs.map((f) => readFileSync(path.join(ROOT, f)));
      const sum = (g) => bs.reduce((n, b) => n + g(b), 0);
      return [name, sum((b) => b.length), sum((b) => gzipSync(b, { level: constants.Z_BEST_COMPRESSION }).length)];
    });
    return { tarball: p.size, unpacked: p.unpackedSize, files: p.entryCount, each };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function sentence(m) {
  const parts = m.each.map(([name, b, g]) => `${name} ${kb(b)} KB (${kb(g)} KB gzipped)`);
  return `Package size (\`node tools/package_sizes.mjs\`: \`npm pack --json\`, and gzip -9 of each file): tarball\n` +
    `${kb(m.tarball)} KB (${kb(m.unpacked)} KB unpacked, ${m.files} files); ${parts[0]},\n${parts[1]}, ${parts[2]}.`;
}

/** The README's sentence: its start and end offsets. */
export function locate(text) {
  const a = text.indexOf('Package size (');
  const b = text.indexOf('gzipped).', a) + 'gzipped).'.length;
  if (a < 0 || b < a) throw new Error('README.md has no "Package size (...)" sentence');
  return [a, b];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const s = sentence(measure());
  console.log(s);
  if (process.argv.includes('--write')) {
    const file = path.join(ROOT, 'README.md');
    const text = readFileSync(file, 'utf8');
    const [a, b] = locate(text);
    writeFileSync(file, text.slice(0, a) + s + text.slice(b));
  }
}
