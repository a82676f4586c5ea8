// The ladder of docs/architecture.md, checked: every `#include "..."` of src/ and wasm/, and every
// relative `import` (static or dynamic) and `new URL('...js', import.meta.url)` of wasm/ and web/,
// must point at its own rung or one below. The rungs are read from the document's blocks marked
// `ladder` (one rung a line, lowest first: a name, then its paths, then words), so the document and
// the check cannot differ. Files outside every rung are checked against nothing; a target outside
// every rung (dist/, the build's output, and node: modules) is not a rung to reach up to.
//   node tools/check_ladder.mjs [ROOT]     prints each violation; exit 1 if there is any
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ladders in `markdown`: [[{ name, paths }]], each lowest rung first. */
export function readLadders(markdown) {
  const ladders = [];
  for (const block of markdown.matchAll(/^```ladder\n([\s\S]*?)^```/gm)) {
    const rungs = [];
    for (const line of block[1].split('\n')) {
      if (!line.trim() || /^\s/.test(line)) continue;  // a continued description
      const [name, ...words] = line.split(/\s+/);
      const paths = [];
      for (const w of words) {
        if (!/^[\w.-]+\/([\w.-]+\/?)*$/.test(w) || !(w.endsWith('/') || w.endsWith('.js'))) break;
        paths.push(w);
      }
      if (!paths.length) throw new Error(`ladder rung '${name}' names no path: "${line}"`);
      rungs.push({ name, paths });
    }
    ladders.push(rungs);
  }
  if (!ladders.length) throw new Error('no ```ladder block');
  return ladders;
}

/** The rung index of a repository path in `rungs` (the longest matching path), or -1. */
function rungOf(rungs, file) {
  let best = -1, len = -1;
  rungs.forEach((r, i) => {
    for (const p of r.paths)
      if ((p.endsWith('/') ? file.startsWith(p) : file === p) && p.length > len) best = i, len = p.length;
  });
  return best;
}

function walk(root, dir, out) {
  let names;
  try {
    names = readdirSync(path.join(root, dir));
  } catch {
    return out;
  }
  for (const n of names) {
    const rel = dir ? `${dir}/${n}` : n;
    if (statSync(path.join(root, rel)).isDirectory()) walk(root, rel, out);
    else out.push(rel);
  }
  return out;
}

/** Each file's references: [{ line, spec, target }] with target a repository path (or null). */
function references(root, file) {
  const text = readFileSync(path.join(root, file), 'utf8');
  const refs = [];
  const lines = text.split('\n');
  const cpp = /\.(cpp|hpp|inc|h)$/.test(file);
  lines.forEach((l, i) => {
    if (cpp) {
      const m = /^\s*#\s*include\s+"([^"]+)"/.exec(l);
      // Quoted includes are rooted at src/ (the build's include path), or beside the file.
      if (m) {
        const beside = path.posix.join(path.posix.dirname(file), m[1]);
        const target = m[1].includes('/') ? `src/${m[1]}` : beside;
        refs.push({ line: i + 1, spec: m[1], target });
      }
      return;
    }
    for (const m of l.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)'(\.{1,2}\/[^']+)'/g))
      refs.push({ line: i + 1, spec: m[1], target: path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])) });
  });
  return refs;
}

/** Every violation under `root`: [{ file, line, spec, from, to, ladder }]. */
export function check(root) {
  const ladders = readLadders(readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
  const files = ['src', 'wasm', 'web'].flatMap((d) => walk(root, d, [])).filter((f) => /\.(cpp|hpp|inc|h|js|mjs)$/.test(f));
  const bad = [];
  for (const file of files) {
    for (const ref of references(root, file)) {
      for (const rungs of ladders) {
        const from = rungOf(rungs, file), to = rungOf(rungs, ref.target);
        if (from >= 0 && to > from)
          bad.push({ file, line: ref.line, spec: ref.spec, from: rungs[from].name, to: rungs[to].name });
      }
    }
  }
  return bad;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const bad = check(root);
  for (const b of bad) console.log(`${b.file}:${b.line}: '${b.spec}' reaches up from ${b.from} to ${b.to}`);
  console.log(bad.length ? `ladder: ${bad.length} reference(s) reach up (docs/architecture.md)` : 'ladder: every #include and import points down');
  process.exit(bad.length ? 1 : 0);
}
