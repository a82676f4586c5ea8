// The IPA line the page shows beside an English pronunciation. The ARPAbet -> IPA table is the
// package's (wasm/pronounce.js, exported by attnseq); this file re-exports it for the page's modules.
// Pure functions, no DOM.
import { ARPABET_IPA, toIPA, speaksARPAbet } from '../wasm/pronounce.js';

export { ARPABET_IPA, toIPA, speaksARPAbet };

/** The line the page shows beside a pronunciation ('' when there is nothing to show). */
export function pronunciationNote(targetTokens, output) {
  if (!speaksARPAbet(targetTokens)) return '';
  const ipa = toIPA(output);
  return ipa ? `IPA /${ipa}/` : '';
}
