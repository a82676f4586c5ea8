// The onnxruntime-web figures the other benchmarks print beside attnseq's: read from the file that
// bench/ort.sh writes (build/bench-results/ort.json), never from constants. Without that file they
// say so ("ORT: not measured (run bash bench/ort.sh)") and leave the ORT columns empty.
//
//   import { readOrtResults } from './ort_results.mjs';   // null, or { step: {H: µs}, encode: {H: µs}, ... }
//   node bench/ort_results.mjs [FILE]                     // for shell scripts: a "# " line describing the run, then
//                                                         // one line per H: "H step_us encode_us step_cpu_us encode_cpu_us";
//                                                         // nothing if absent
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ORT_RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'build', 'bench-results', 'ort.json');
export const ORT_NOT_MEASURED = 'ORT: not measured (run bash bench/ort.sh)';

// Returns null when the file is absent or holds no figures; otherwise the ORT wall-clock figures per H
// (lowest of the rounds' medians, µs), CPU-time ones, and a one-line description of the run.
export function readOrtResults(file = ORT_RESULTS) {
  let j;
  try {
    j = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  // The readers time the reference model (V = 1000): figures of another vocabulary (bench/ort.sh --V,
  // which writes them to a file of its own) are not theirs to quote. Files from before --V have no V.
  if ((j.V ?? 1000) !== 1000) return null;
  const step = {}, encode = {}, stepCpu = {}, encodeCpu = {};
  for (const [H, r] of Object.entries(j.results ?? {})) {
    if (typeof r.ort_step_us !== 'number' || typeof r.ort_encode_us !== 'number') continue;
    step[H] = r.ort_step_us; encode[H] = r.ort_encode_us;
    stepCpu[H] = r.ort_step_cpu_us; encodeCpu[H] = r.ort_encode_cpu_us;
  }
  if (!Object.keys(step).length) return null;
  const load = (j.load?.start ?? []).map((x) => x.toFixed(2)).join(' ');
  const describe = `ORT: onnxruntime-web ${j.ort} (wasm SIMD, 1 thread), measured by bench/ort.sh on ${String(j.date).slice(0, 16).replace('T', ' ')} UTC, load ${load}`;
  return { step, encode, stepCpu, encodeCpu, date: j.date, version: j.ort, describe };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const r = readOrtResults(process.argv[2] ?? ORT_RESULTS);
  if (r) {
    console.log(`# ${r.describe}`);
    for (const H of Object.keys(r.step)) console.log(`${H} ${r.step[H]} ${r.encode[H]} ${r.stepCpu[H]} ${r.encodeCpu[H]}`);
  }
}
