// scripts/lint.sh, the house-style check `npm test` runs first, fails on a misformatted C++ file and on
// an ESLint error, naming the file, and passes once both are fixed. It runs in a scratch git
// repository holding the project's own .clang-format, eslint.config.js and lint script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function scratch(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnseq-lint-'));
  for (const f of ['.clang-format', 'eslint.config.js', 'scripts/lint.sh', 'package.json']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const git = (...a) => spawnSync('git', a, { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  return dir;
}

const lint = (dir) => spawnSync('bash', ['scripts/lint.sh'], { cwd: dir, encoding: 'utf8' });

const GOOD_CPP = 'int twice(int x) { return 2 * x; }\n';
const GOOD_JS = 'export const twice = (x) => 2 * x;\n';

test('lint: a misformatted C++ file fails the check, and names the file', () => {
  const dir = scratch({ 'src/bad.cpp': 'int twice( int x ){return 2*x;}\n', 'web/ok.js': GOOD_JS });
  try {
    const r = lint(dir);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /src\/bad\.cpp:1:/);
    assert.match(r.stderr, /C\+\+ not in the house style/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('lint: an ESLint error (an undefined name) fails the check, and names the file and rule', () => {
  const dir = scratch({ 'src/ok.cpp': GOOD_CPP, 'web/bad.js': 'export const f = () => undefinedName + 1;\n' });
  try {
    const r = lint(dir);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /web\/bad\.js/);
    assert.match(r.stdout, /'undefinedName' is not defined\s+no-undef/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('lint: formatted C++ and lint-free JavaScript pass', () => {
  const dir = scratch({ 'src/ok.cpp': GOOD_CPP, 'web/ok.js': GOOD_JS });
  try {
    const r = lint(dir);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /lint: 1 C\+\+ files formatted, JavaScript lint-free/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
