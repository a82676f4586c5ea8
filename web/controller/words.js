// A pronunciation model reads one word, and the page's input may hold several, with digits, spaces
// and punctuation between them (issue 27). The watched decode is then one word's: the first, or the
// one picked in the line under the input, which lists the input's parts (the package's splitWords):
// each word a button with its pronunciation (pronounce(): the model's dictionary's when it has the
// word, else the model's own, with the model's decode options), and what is not a word as written,
// never turned into phonemes. Interface: wordsOf(entry, text), watchedText(entry, text), renderWords(onPick),
// resetWord() (the input was edited: the first word is watched again).
import { splitWords, pronounce } from '../../wasm/pronounce.js';
import { h } from '../views/dom.js';
import { state } from './state.js';
import { $ } from './page.js';
import { lexiconMap } from './lexicon.js';

/** The line lists at most this many words (each decoded once, in one batch, on the page's thread). */
export const MAX_LISTED_WORDS = 40;

const isPron = (entry) => entry?.task === 'pron' && entry.model?.config.srcTokenizer === 'char';

/** A pronunciation model's input as parts and words ({ parts, words }), or null for other models. */
export function wordsOf(entry, text) {
  if (!isPron(entry)) return null;
  const parts = splitWords(text);
  return { parts, words: parts.filter((p) => p.word) };
}

/** What the watched decode reads: the picked word of a pronunciation model's input ('' when it has
 * no word: nothing there is pronounced), else the input as typed. */
export function watchedText(entry, text) {
  const w = wordsOf(entry, text);
  if (!w) return text;
  if (w.words.length === 0) return '';
  return w.words[Math.min(state.word, w.words.length - 1)].text;
}

export function resetWord() {
  state.word = 0;
}

// The last line drawn, so that a redraw with nothing new does no work (the input's events call it).
let drawn = null;

/**
 * Draws the line of words under the input for the current model and input (hidden when the input is
 * one word, or for other models). onPick(i) is called when word i is picked.
 */
export function renderWords(onPick) {
  const entry = state.current, text = $('source').value;
  const w = wordsOf(entry, text);
  const box = $('words');
  const lexicon = w ? lexiconMap(entry, () => { drawn = null; renderWords(onPick); }) : null;
  const single = !w || (w.words.length <= 1 && w.parts.every((p) => p.word || !p.text.trim()));
  const key = single ? null : [entry.id, text, Math.min(state.word, w.words.length - 1), Boolean(lexicon)].join('\u0000');
  if (key === drawn) return;
  drawn = key;
  if (single) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  if (w.words.length === 0) {
    box.replaceChildren(`Nothing here to pronounce: digits, spaces and punctuation stay as written (“${text.trim()}”).`);
    return;
  }
  // Pronounced up to the MAX_LISTED_WORDS-th word; the rest is listed as written.
  const last = w.words[Math.min(w.words.length, MAX_LISTED_WORDS) - 1];
  let result = null, failure = null;
  try {
    result = pronounce(entry.model, text.slice(0, last.end), { ...entry.decode, ...(lexicon ? { lexicon } : {}) });
  } catch (e) {
    failure = e.message;
  }
  const picked = Math.min(state.word, w.words.length - 1);
  let index = 0;
  const children = [h('span', { class: 'words-label' }, 'Words:')];
  for (const p of w.parts) {
    if (!p.word) {
      children.push(h('span', { class: 'words-gap' }, p.text));
      continue;
    }
    const i = index++;
    const said = result?.parts.find((q) => q.word && q.start === p.start);
    const title = said ? `${said.phonemes}${said.ipa ? ` /${said.ipa}/` : ''} (${said.source === 'lexicon' ? 'the dictionary' : 'the model'})` : 'not pronounced here: pick it to watch the model decode it';
    const button = h('button', { type: 'button', class: 'word', 'aria-pressed': String(i === picked), title, 'data-word': String(i) },
      h('span', { class: 'word-text' }, p.text),
      said ? h('span', { class: `word-says ${said.source}` }, said.ipa ? `/${said.ipa}/` : said.phonemes) : null);
    button.addEventListener('click', () => onPick(i));
    children.push(button);
  }
  if (failure) children.push(h('span', { class: 'words-error' }, `Could not pronounce the words: ${failure}`));
  else if (w.words.length > MAX_LISTED_WORDS) children.push(h('span', { class: 'words-gap' }, ` (the first ${MAX_LISTED_WORDS} words are pronounced here; pick another to watch it)`));
  box.replaceChildren(...children);
}
