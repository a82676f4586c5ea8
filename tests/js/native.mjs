// The native command line as the Node suites run it: its path (build/native/attnseq, which
// scripts/test.sh builds, or $ATTNSEQ_NATIVE_CLI), the check that fails a test with the build
// command when it is missing, never skips it, and the runs the suites make of it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NATIVE_CLI = process.env.ATTNSEQ_NATIVE_CLI ? path.resolve(process.env.ATTNSEQ_NATIVE_CLI) : path.join(ROOT, 'build/native/attnseq');

export function requireNativeCli() {
  try {
    accessSync(NATIVE_CLI, constants.X_OK);
  } catch {
    assert.fail(`the native CLI ${NATIVE_CLI} is missing or not executable: build it with ` +
      '`cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native --target attnseq` ' +
      '(or point ATTNSEQ_NATIVE_CLI at it)');
  }
}

// Runs the CLI: { code, out, err, what }. With `fileLimitKB`, under `ulimit -f` (bash counts it in
// KiB). A spawn error or a kill by a signal (a crash) fails the test.
export function runCli(args, { fileLimitKB } = {}) {
  requireNativeCli();
  const r = fileLimitKB === undefined
    ? spawnSync(NATIVE_CLI, args, { encoding: 'utf8', timeout: 60000 })
    : spawnSync('bash', ['-c', `ulimit -f ${fileLimitKB}; exec "$0" "$@"`, NATIVE_CLI, ...args], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.error, undefined, String(r.error));
  const what = `attnseq ${args.join(' ')}`;
  assert.equal(r.signal, null, `${what}: killed by ${r.signal}; stderr: ${r.stderr}`);
  return { code: r.status, out: r.stdout, err: r.stderr, what };
}
// A run that must succeed (exit 0); its result.
export function cliOk(args) {
  const r = runCli(args);
  assert.equal(r.code, 0, `${r.what}: exit ${r.code}; stderr: ${r.err}`);
  return r;
}
// A refusal: exit 1 (exit 2 for a usage error: cliUsage), every expected fragment on stderr,
// nothing on stdout.
export function cliRefused(args, ...fragments) {
  return refusedWith(1, args, fragments);
}
// A command line the command cannot take (unknown, repeated or missing option, a value out of its
// option's form or range): exit 2, as in `npx attnseq`.
export function cliUsage(args, ...fragments) {
  return refusedWith(2, args, fragments);
}
function refusedWith(code, args, fragments) {
  const r = runCli(args);
  assert.equal(r.code, code, `${r.what}: should be refused with exit ${code}, exited ${r.code}; stdout: ${r.out.slice(0, 300)}; stderr: ${r.err}`);
  for (const f of fragments) assert.ok(r.err.includes(f), `${r.what}: stderr should contain ${JSON.stringify(f)}; got: ${r.err}`);
  assert.equal(r.out, '', `${r.what}: nothing on stdout`);
  return r;
}

// A tiny English-to-French Multi30K model (hidden and embeddings of 16, tied, batch 16) trained here on
// the pair `${train}.en` / `${train}.fr` with `${dev}.en` / `${dev}.fr` as its dev pair, with the
// shipped SentencePiece models, written to `out`; returns `out`. For the recipe tests that need
// members or teachers of their own.
export function trainTinyEnFr({ train, dev, seed, epochs, out }) {
  const spm = path.join(ROOT, 'data/multi30k/spm');
  cliOk(['train', '--src', `${train}.en`, '--tgt', `${train}.fr`, '--dev-src', `${dev}.en`, '--dev-tgt', `${dev}.fr`,
    '--src-spm', path.join(spm, 'm30k_en.model'), '--tgt-spm', path.join(spm, 'm30k_fr.model'),
    '--hidden', '16', '--embedding', '16', '--tie-embeddings', '--batch', '16', '--epochs', String(epochs),
    '--seed', String(seed), '--threads', '1', '--quiet', '--out', out]);
  return out;
}
