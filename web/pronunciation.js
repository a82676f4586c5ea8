// ARPAbet -> IPA for the English pronunciation model's output: the 39 stressless phonemes of CMUdict
// (data/cmudict/README.md), one IPA string each, as in the table of docs/g2p.md (General American;
// the usual ARPAbet correspondence). CMUdict's stress digits are removed in the G2P data, so the two
// vowels whose IPA depends on stress take their unstressed form: AH -> ə (AH1 would be ʌ) and
// ER -> ɚ (ER1 would be ɝ). Pure functions, no DOM.

/** The 39 phonemes and their IPA, in ARPAbet order. */
export const ARPABET_IPA = Object.freeze({
  AA: 'ɑ', AE: 'æ', AH: 'ə', AO: 'ɔ', AW: 'aʊ', AY: 'aɪ', B: 'b', CH: 'tʃ', D: 'd', DH: 'ð',
  EH: 'ɛ', ER: 'ɚ', EY: 'eɪ', F: 'f', G: 'ɡ', HH: 'h', IH: 'ɪ', IY: 'i', JH: 'dʒ', K: 'k',
  L: 'l', M: 'm', N: 'n', NG: 'ŋ', OW: 'oʊ', OY: 'ɔɪ', P: 'p', R: 'ɹ', S: 's', SH: 'ʃ',
  T: 't', TH: 'θ', UH: 'ʊ', UW: 'u', V: 'v', W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
});

/**
 * IPA of a phoneme string ("N AY T" -> "naɪt"); a token outside the 39 (a special such as <unk>, or a
 * model that is not ARPAbet) makes the whole answer null rather than a half-converted string.
 */
export function toIPA(phonemes) {
  const toks = String(phonemes ?? '').trim().split(/\s+/).filter(Boolean);
  if (!toks.length) return '';
  let out = '';
  for (const t of toks) {
    const ipa = Object.prototype.hasOwnProperty.call(ARPABET_IPA, t) ? ARPABET_IPA[t] : null;
    if (ipa === null) return null;
    out += ipa;
  }
  return out;
}

/** Whether a model's target vocabulary is ARPAbet (every ordinary token one of the 39). */
export function speaksARPAbet(targetTokens) {
  const ordinary = (targetTokens ?? []).filter((t) => !/^<.*>$/.test(t));
  return ordinary.length > 0 && ordinary.every((t) => Object.prototype.hasOwnProperty.call(ARPABET_IPA, t));
}

/** The line the page shows beside a pronunciation ('' when there is nothing to show). */
export function pronunciationNote(targetTokens, output) {
  if (!speaksARPAbet(targetTokens)) return '';
  const ipa = toIPA(output);
  return ipa ? `IPA /${ipa}/` : '';
}
