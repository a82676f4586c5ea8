// pronounce() and splitWords() of the package (wasm/pronounce.js): text is split into words and what
// lies between them; each word is pronounced by the lexicon given or by the model, as translate()
// would; digits, spaces and punctuation are never turned into phonemes; bad input is refused naming
// what is wrong, and the model stays usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadModel, createEnsemble, pronounce, parseLexicon, splitWords, toIPA, ARPABET_IPA, AttnseqError } from '../../wasm/attnseq.js';
import * as page from '../../web/pronunciation.js';

const MODEL = (f) => fileURLToPath(new URL(`../../models/${f}`, import.meta.url));

test('splitWords() covers the text whole: words are letters (and inner apostrophes), the rest passes through', () => {
  for (const text of ['hello world', '2024', "don't stop, O'Brien!", '  café—naïve  ', '', '국물 맛']) {
    const parts = splitWords(text);
    assert.equal(parts.map((p) => p.text).join(''), text, text);
    for (const p of parts) assert.equal(text.slice(p.start, p.end), p.text);
    for (let i = 1; i < parts.length; i++) assert.notEqual(parts[i].word, parts[i - 1].word, 'words and gaps alternate');
  }
  assert.deepEqual(splitWords("don't stop, O'Brien!").filter((p) => p.word).map((p) => p.text), ["don't", 'stop', "O'Brien"]);
  assert.deepEqual(splitWords('2024').map((p) => p.word), [false]);
  assert.deepEqual(splitWords('café—naïve').filter((p) => p.word).map((p) => p.text), ['café', 'naïve']);
  assert.throws(() => splitWords(42), (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT');
});

test('pronounce(): each word as translate() says, digits and punctuation as written, never as phonemes', async () => {
  const g2p = await loadModel(MODEL('g2p-en.safetensors'));
  try {
    const text = 'Hello world, 2024! hello';
    const r = pronounce(g2p, text, { beam: 5 });
    assert.equal(r.text, text);
    assert.equal(r.parts.map((p) => p.text).join(''), text);
    const words = r.parts.filter((p) => p.word);
    assert.deepEqual(words.map((w) => w.text), ['Hello', 'world', 'hello']);
    for (const w of words) {
      const want = g2p.translate(w.text, { beam: 5 });
      assert.equal(w.source, 'model');
      assert.equal(w.phonemes, want.text);
      assert.deepEqual(w.alternatives, [want.text]);
      assert.equal(w.ipa, toIPA(want.text));
      assert.deepEqual([...w.translation.attention], [...want.attention]);
    }
    for (const p of r.parts.filter((x) => !x.word)) {
      assert.equal(p.phonemes, undefined, `'${p.text}' has no phonemes`);
      assert.doesNotMatch(p.text, /\p{L}/u);
    }
    // Digits alone: nothing to pronounce, nothing decoded.
    assert.deepEqual(pronounce(g2p, '2024').parts, [{ text: '2024', start: 0, end: 4, word: false }]);
  } finally {
    g2p.dispose();
  }
});

test('pronounce() with a lexicon: its words as it says (any letter case), the model for the rest', async () => {
  const g2p = await loadModel(MODEL('g2p-en.safetensors'));
  try {
    const lexicon = new Map([['of', 'AH V'], ['COLONEL', ['K ER N AH L', 'K ER  N L']], ['Xerox', 'Z IH R AA K S']]);
    const r = pronounce(g2p, 'Of colonel xerox knight', { lexicon });
    const by = Object.fromEntries(r.parts.filter((p) => p.word).map((p) => [p.text, p]));
    assert.equal(by.Of.source, 'lexicon');
    assert.equal(by.Of.phonemes, 'AH V');
    assert.equal(by.Of.ipa, 'əv');
    assert.equal(by.Of.translation, null);
    assert.deepEqual(by.colonel.alternatives, ['K ER N AH L', 'K ER N L']);   // spaces normalised
    assert.equal(by.xerox.phonemes, 'Z IH R AA K S');
    assert.equal(by.knight.source, 'model');
    assert.equal(by.knight.phonemes, g2p.translate('knight').text);
    // Bad input is refused naming it; the model keeps working.
    const refused = (fn, re) => assert.throws(fn, (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && re.test(e.message));
    refused(() => pronounce(g2p, 'of', { lexicon: new Map([['of', '']]) }), /entry for 'of' must be a pronunciation/);
    refused(() => pronounce(g2p, 'of', { lexicon: { of: 'AH V' } }), /must be a Map/);
    refused(() => pronounce(g2p, 42), /takes text/);
    refused(() => pronounce({}, 'of'), /takes a Model or an Ensemble/);
    refused(() => pronounce(g2p, 'cat', { bem: 2 }), /unknown option 'bem'/);
    assert.equal(pronounce(g2p, 'cat').parts[0].phonemes, 'K AE T');
  } finally {
    g2p.dispose();
  }
});

test('pronounce() with an IPA ensemble (g2p-ady) joins its phones, and with Korean; a model that does not read letters is refused', async () => {
  const ady = createEnsemble(await Promise.all([1, 2, 3].map((k) => loadModel(MODEL(`g2p/ady-${k}.safetensors`)))));
  try {
    const [w] = pronounce(ady, 'ачъэ').parts;
    const want = ady.translate('ачъэ');
    assert.equal(w.phonemes, want.text);
    assert.equal(w.ipa, want.text.split(' ').join(''));
  } finally {
    ady.dispose();
  }
  const ko = await loadModel(MODEL('g2p/ko-1.safetensors'));
  try {
    const [w] = pronounce(ko, '국물').parts;
    const want = ko.translate('국물');
    assert.equal(w.phonemes, want.text);
    assert.equal(w.ipa, want.text.split(' ').join(''));
  } finally {
    ko.dispose();
  }
  const de = await loadModel(MODEL('en-de.safetensors'));
  try {
    assert.throws(() => pronounce(de, 'a dog'), (e) => e.code === 'BAD_INPUT' && /reads letters/.test(e.message));
  } finally {
    de.dispose();
  }
});

test('the page\'s ARPAbet table is the package\'s', () => {
  assert.equal(page.ARPABET_IPA, ARPABET_IPA);
  assert.equal(Object.keys(ARPABET_IPA).length, 39);
});

test('parseLexicon(): WORD<TAB>PRONUNCIATION lines; a malformed line is refused naming the file and the line', () => {
  const m = parseLexicon('KNIGHT\tN AY T\nTHE\tDH AH\r\n\nTHE\tDH  IY\nTHE\tDH AH\n', 'mine.tsv');
  assert.deepEqual([...m], [['KNIGHT', ['N AY T']], ['THE', ['DH AH', 'DH IY']]]);
  for (const [text, where, why] of [
    ['OK\tOW K EY\nBROKEN LINE\n', 'mine.tsv:2', /no tab/],
    ['\tAH\n', 'mine.tsv:1', /no word before the tab/],
    ['A B\tAH\n', 'mine.tsv:1', /holds a space/],
    ['OK\tOW K EY\nA\t \n', 'mine.tsv:2', /no pronunciation for 'A'/],
    ['A\tAH\tB\n', 'mine.tsv:1', /more than one tab/],
  ]) {
    assert.throws(() => parseLexicon(text, 'mine.tsv'), (e) => e instanceof AttnseqError && e.code === 'BAD_INPUT' && e.message.startsWith(`${where}: `) && why.test(e.message), where);
  }
});

test('pronounce() of many texts decodes every distinct word once, in one batch; several lexicons: the first that has a word decides', async () => {
  const g2p = await loadModel(MODEL('g2p-en.safetensors'));
  try {
    const mine = new Map([['of', 'AO F']]), shipped = parseLexicon('OF\tAH V\nTHE\tDH AH\n');
    const [a, b] = pronounce(g2p, ['Of the knight', 'the knight, of course'], { lexicon: [mine, shipped], beam: 3 });
    const word = (r, t) => r.parts.find((p) => p.text === t);
    assert.equal(word(a, 'Of').phonemes, 'AO F', 'the user\'s lexicon wins');
    assert.equal(word(a, 'the').phonemes, 'DH AH');
    assert.equal(word(b, 'course').phonemes, g2p.translate('course', { beam: 3 }).text);
    assert.equal(word(a, 'knight').translation.text, word(b, 'knight').translation.text);
    assert.deepEqual(pronounce(g2p, []), []);
    assert.throws(() => pronounce(g2p, ['ok', 3]), (e) => e.code === 'BAD_INPUT' && /number at \[1\]/.test(e.message));
    assert.throws(() => pronounce(g2p, 'ok', { lexicon: [mine, {}] }), (e) => e.code === 'BAD_INPUT' && /array of them/.test(e.message));
  } finally {
    g2p.dispose();
  }
});

test('models/g2p-en.lexicon.tsv.gz is what tools/make_lexicon.mjs makes of data/cmudict', () => {
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('../../tools/make_lexicon.mjs', import.meta.url)), '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /CMUdict's 126191 entries/);
});
