// Inputs for the length study: the reverse task's sources (letters a..t, as in
// src/train/task_symbols.cpp) drawn with a small seeded generator, so a run is reproducible and both
// models see exactly the same strings. Pure; runs in the worker and in Node tests.

/** mulberry32: a tiny 32-bit seeded PRNG (public domain, Tommy Ettinger). Returns floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ALPHABET = 'abcdefghijklmnopqrst';  // the reverse task's 20 symbols

/** Lengths 5, 10, ..., max (the default study grid). */
export function lengthGrid(max = 60, step = 5) {
  const out = [];
  for (let L = step; L <= max; L += step) out.push(L);
  return out;
}

/** n random strings of exactly `length` letters for each length: { length, sources }[]. */
export function reverseSet(lengths, n, seed = 1) {
  const rnd = mulberry32(seed);
  return lengths.map((length) => {
    const sources = [];
    for (let i = 0; i < n; i++) {
      let s = '';
      for (let j = 0; j < length; j++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
      sources.push(s);
    }
    return { length, sources };
  });
}

export const reverseString = (s) => Array.from(s).reverse().join('');

/** Scores one output against the reversed source: exact match and position-wise token accuracy. */
export function scoreReverse(source, output) {
  const want = reverseString(source);
  let same = 0;
  for (let i = 0; i < want.length; i++) if (output[i] === want[i]) same++;
  return { exact: output === want, tokenAccuracy: same / want.length };
}
