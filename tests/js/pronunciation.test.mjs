// web/pronunciation.js: the ARPAbet -> IPA table covers exactly CMUdict's 39 phonemes (the set the
// data reader accepts, read from data/cmudict/README.md), matches docs/g2p.md row by row, and
// converts whole outputs, refusing anything that is not ARPAbet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ARPABET_IPA, toIPA, speaksARPAbet, pronunciationNote } from '../../web/pronunciation.js';

const root = new URL('../../', import.meta.url);

test('the table has exactly the 39 phonemes of the data', () => {
  const readme = readFileSync(new URL('data/cmudict/README.md', root), 'utf8');
  const line = /Phonemes: ([A-Z ]+(?:\n[A-Z ]+)?)\./.exec(readme)[1];
  const phonemes = line.split(/\s+/).filter(Boolean);
  assert.equal(phonemes.length, 39);
  assert.deepEqual(Object.keys(ARPABET_IPA).sort(), [...phonemes].sort());
  for (const [k, v] of Object.entries(ARPABET_IPA)) assert.ok(v.length > 0, k);
});

test('docs/g2p.md lists the same IPA for every phoneme', () => {
  const doc = readFileSync(new URL('docs/g2p.md', root), 'utf8');
  const rows = new Map();
  for (const m of doc.matchAll(/\| ([A-Z]{1,2}) \| ([^ |]+) \|/g)) rows.set(m[1], m[2]);
  assert.equal(rows.size, 39);
  for (const [k, v] of Object.entries(ARPABET_IPA)) assert.equal(rows.get(k), v, k);
});

test('whole pronunciations convert, anything else is refused', () => {
  assert.equal(toIPA('N AY T'), 'naɪt');
  assert.equal(toIPA('F IY N IH K S'), 'finɪks');
  assert.equal(toIPA('  S AY K AA L AH JH IY '), 'saɪkɑlədʒi');
  assert.equal(toIPA(''), '');
  assert.equal(toIPA('N <unk> T'), null);
  assert.equal(toIPA('n ay t'), null);  // ARPAbet is upper case
  assert.equal(toIPA('TOSTRING'), null);  // no prototype keys
});

test('the note appears only for a model whose targets are ARPAbet', () => {
  const g2p = ['<pad>', '<s>', '</s>', '<unk>', ...Object.keys(ARPABET_IPA)];
  assert.equal(speaksARPAbet(g2p), true);
  assert.equal(pronunciationNote(g2p, 'N AY T'), 'IPA /naɪt/');
  assert.equal(pronunciationNote(g2p, ''), '');
  assert.equal(speaksARPAbet(['<pad>', '<s>', '</s>', '<unk>', '제인이', 'N']), false);
  assert.equal(pronunciationNote(['<pad>', 'a', 'b'], 'a b'), '');
  assert.equal(speaksARPAbet(['<pad>', '<s>', '</s>', '<unk>']), false);
});
