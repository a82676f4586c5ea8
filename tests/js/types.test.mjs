// The package's hand-written types (wasm/index.d.ts) as a TypeScript user meets them: `npm pack`,
// install the tarball into an empty project, type-check tests/types/consumer.ts against it with the
// repo's tsc (strict, no skipLibCheck), prove the checker really checks (dropping any one
// `@ts-expect-error` makes it fail at that line), then compile the consumer and run it against a
// checkpoint. Also runs the installed `attnseq` bin through its node_modules/.bin link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, readFileSync, writeFileSync, copyFileSync, existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(ROOT, 'node_modules/.bin/tsc');
const TYPES = path.join(ROOT, 'tests/types');
const FIXTURE = path.join(ROOT, 'tests/data/parity/gru_luong_general.safetensors');
let dir, project;

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, {
    cwd, encoding: 'utf8', timeout: 50000,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' },
  });
  assert.equal(r.error, undefined, `${cmd} ${args.join(' ')}: ${r.error}`);
  return { code: r.status, out: r.stdout + r.stderr, stdout: r.stdout };
}
const tsc = (...args) => run(process.execPath, [TSC, ...args], project);
// `file(line,col): error TSxxxx` lines of a tsc run, as line numbers of `file`.
const errorLines = (out, file) =>
  [...out.matchAll(new RegExp(`^${file.replace('.', '\\.')}\\((\\d+),\\d+\\): error TS\\d+`, 'gm'))].map((m) => Number(m[1]));
// The plain check of consumer.ts, run once (the other tests compare against it).
let clean;
const cleanCheck = () => (clean ??= tsc('-p', path.join(project, 'tsconfig.json'), '--listFiles'));

before(() => {
  assert.ok(existsSync(TSC), 'node_modules/.bin/tsc is missing: run `npm install` (typescript is a devDependency)');
  dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-types-'));
  project = path.join(dir, 'project');
  const pack = run('npm', ['pack', '--json', '--pack-destination', dir], ROOT);
  assert.equal(pack.code, 0, pack.out);
  const tgz = path.join(dir, JSON.parse(pack.stdout)[0].filename);
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'ts-consumer', private: true, type: 'module' }));
  const inst = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tgz], project);
  assert.equal(inst.code, 0, inst.out);
  for (const f of ['consumer.ts', 'tsconfig.json']) copyFileSync(path.join(TYPES, f), path.join(project, f));
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

test('consumer.ts type-checks (strict) against the installed package types', () => {
  const r = cleanCheck();
  const errors = r.out.split('\n').filter((l) => l && !path.isAbsolute(l)).join('\n');
  assert.equal(r.code, 0, `tsc failed:\n${errors}`);
  // The types came from the tarball's wasm/index.d.ts, found through package.json "exports".
  const dts = realpathSync(path.join(project, 'node_modules/attnseq/wasm/index.d.ts'));
  assert.ok(r.out.split('\n').some((l) => l.trim() && realpathSync(l.trim()) === dts), r.out);
});

test('each @ts-expect-error line is a real type error: dropping it makes tsc fail there', () => {
  const lines = readFileSync(path.join(TYPES, 'consumer.ts'), 'utf8').split('\n');
  const directives = lines.flatMap((l, i) => (/^\s*\/\/ @ts-expect-error/.test(l) ? [i] : []));
  assert.ok(directives.length >= 2, 'consumer.ts needs at least two @ts-expect-error lines');
  // One variant file per directive, checked in one tsc run; each must fail on the line it exposed.
  const files = directives.map((at, k) => {
    const name = `variant_${k}.ts`;
    writeFileSync(path.join(project, name), lines.filter((_, i) => i !== at).join('\n'));
    return name;
  });
  const config = path.join(project, 'tsconfig.variants.json');
  writeFileSync(config, JSON.stringify({ extends: './tsconfig.json', files }));
  const r = tsc('-p', config);
  assert.notEqual(r.code, 0, `tsc accepted every variant:\n${r.out}`);
  // Errors consumer.ts already has (reported by the test above) are not this test's business.
  const known = errorLines(cleanCheck().out, 'consumer.ts');
  directives.forEach((at, k) => {
    // The directive was on line at+1 (1-based); without it the refused call moves up to that line.
    const shifted = known.map((l) => (l > at + 1 ? l - 1 : l));
    const fresh = errorLines(r.out, files[k]).filter((l) => !shifted.includes(l));
    assert.deepEqual(fresh, [at + 1], `${files[k]} (without line ${at + 1}: ${lines[at].trim()}):\n${r.out}`);
  });
});

test('the compiled consumer runs against the package and agrees with its types at runtime', () => {
  // tsc emits even when it reports type errors; those fail the first test, this one checks behaviour.
  const out = path.join(project, 'out');
  const r = tsc('-p', path.join(project, 'tsconfig.json'), '--noEmit', 'false', '--outDir', out);
  assert.ok(existsSync(path.join(out, 'consumer.js')), r.out);
  copyFileSync(FIXTURE, path.join(out, 'model.safetensors'));
  const js = run(process.execPath, [path.join(out, 'consumer.js')], project);
  assert.equal(js.code, 0, js.out);
  assert.match(js.stdout, /^consumer ok: \S/);
});

test('the installed bin runs through node_modules/.bin', () => {
  const bin = path.join(project, 'node_modules/.bin/attnseq');
  const r = run(bin, ['translate', '--model', FIXTURE, '--json', 'w5 w6 w7'], project);
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(JSON.parse(r.stdout).srcTokens, ['w5', 'w6', 'w7']);
  const bad = run(bin, ['translate', '--model', path.join(dir, 'missing.safetensors'), 'w5'], project);
  assert.equal(bad.code, 1);
  assert.match(bad.out, /^attnseq: LOAD_FAILED: /);
});
