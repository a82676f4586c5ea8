// The npm package as a user gets it: `npm pack` of this checkout, installed from the tarball into an
// empty temporary folder, then imported by name. Shared by the Node suites that test the packed package.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Packs and installs the package; returns { dir, pkg (the module), cleanup() }. */
export async function installPacked() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attnseq-pkg-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
  const tgz = path.join(dir, JSON.parse(out)[0].filename);
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tgz], { cwd: dir, stdio: 'pipe' });
  await writeFile(path.join(dir, 'entry.mjs'), "export * from 'attnseq';\n");
  const pkg = await import(pathToFileURL(path.join(dir, 'entry.mjs')).href);
  return { dir, pkg, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
