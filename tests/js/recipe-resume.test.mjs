// The training recipes' run-or-resume step (scripts/lib/resume.sh, used by scripts/train-g2p.sh and
// scripts/train-multi30k.sh), with a stand-in for the attnseq binary that records how it was called:
// a new run starts, a killed one resumes from OUT.last, a finished one lets the recipe go on, and any
// other failure stops the recipe with the binary's exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function run(dir, { exit = 0, say = '', state = false }) {
  const cli = path.join(dir, 'fake-attnseq');
  writeFileSync(cli, `#!/bin/sh\necho "$@" >> "${dir}/calls"\necho "${say}" >&2\necho out-line\nexit ${exit}\n`, { mode: 0o755 });
  const out = path.join(dir, 'm.safetensors');
  rmSync(`${out}.last.trainer`, { force: true });
  if (state) writeFileSync(`${out}.last.trainer`, 'state');
  rmSync(path.join(dir, 'calls'), { force: true });
  const r = spawnSync('bash', ['-c', `set -euo pipefail; . scripts/lib/resume.sh; train_or_resume demo "${out}" "${cli}" train --epochs 3; echo after`], { encoding: 'utf8' });
  return { ...r, calls: readFileSync(path.join(dir, 'calls'), 'utf8').trim(), out };
}

test('train_or_resume: starts, resumes from OUT.last, goes on after a finished run, stops on a failure', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnseq-resume-'));
  try {
    let r = run(dir, {});
    assert.equal(r.status, 0);
    assert.equal(r.calls, 'train --epochs 3', 'a new run has no --resume');
    assert.match(r.stdout, /out-line\nafter/);

    r = run(dir, { state: true, say: 'resuming' });
    assert.equal(r.status, 0);
    assert.equal(r.calls, `train --epochs 3 --resume ${r.out}.last`, 'a killed run resumes from OUT.last');
    assert.match(r.stdout, /out-line\nafter/, "the binary's stdout goes through");
    assert.match(r.stderr, /resuming/, 'its progress is shown');
    assert.equal(existsSync(`${r.out}.resume.log`), false, 'the kept log is removed');

    r = run(dir, { state: true, exit: 2, say: '--epochs 3 must exceed the 3 epochs already done' });
    assert.equal(r.status, 0, 'a finished run lets the recipe go on');
    assert.match(r.stderr, /\[demo\] the training run in .*m\.safetensors\.last\.trainer is over/);
    assert.match(r.stdout, /after/);

    r = run(dir, { state: true, exit: 3, say: 'cannot read the state' });
    assert.equal(r.status, 3, "any other failure stops the recipe with the binary's code");
    assert.doesNotMatch(r.stdout, /after/);
    assert.match(r.stderr, /cannot read the state/);

    r = run(dir, { exit: 4 });
    assert.equal(r.status, 4, 'a new run that fails stops the recipe');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
