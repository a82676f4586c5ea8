// The npm package as a user gets it: `npm pack` of this checkout, installed from the tarball into an
// empty temporary folder, then imported by name. Shared by the Node suites that test the packed package.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const pack = (cwd, dir) => {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return path.join(dir, JSON.parse(out)[0].filename);
};

/**
 * Packs and installs the package (and with { models: true } the models package,
 * packages/attnseq-models, too); returns { dir, pkg (the attnseq module), cleanup() }.
 */
export async function installPacked({ models = false } = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attnseq-pkg-'));
  const tarballs = [pack(ROOT, dir)];
  if (models) tarballs.push(pack(path.join(ROOT, 'packages/attnseq-models'), dir));
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: dir, stdio: 'pipe' });
  await writeFile(path.join(dir, 'entry.mjs'), "export * from 'attnseq';\n");
  const pkg = await import(pathToFileURL(path.join(dir, 'entry.mjs')).href);
  return { dir, pkg, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
