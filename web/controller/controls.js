// The input and the player's controls: what the current model makes of the input (nothing to decode,
// source words it does not know, a prefix it cannot output) with the notes under the fields, which
// buttons can be pressed, the play button's name and the speed slider. Interface: readInput(),
// auxSource(), inputKey(), checkInput(), updateButtons(), refreshNotes(), updatePlayButton(), speed().
import { showToken } from '../views/alignment.js';
import { state } from './state.js';
import { $, refocus, setWatchState } from './page.js';
import { sessionKey, parseIds, unknownAt } from './session.js';
import { ARPABET_IPA } from '../pronunciation.js';
import { writeLink } from './link.js';
import { watchedText } from './words.js';

// Playback speeds of the slider (1..8): milliseconds between decoder steps.
const SPEEDS = [
  [2000, '0.5 steps/s'], [1000, '1 step/s'], [700, '1.5 steps/s'], [500, '2 steps/s'],
  [250, '4 steps/s'], [125, '8 steps/s'], [50, '20 steps/s'], [16, 'as fast as possible'],
];
/** The slider's [milliseconds between steps, label]. */
export const speed = () => SPEEDS[Math.min(SPEEDS.length, Math.max(1, Number($('speed').value))) - 1];

/** The input and forced prefix as typed. */
/** What the fields ask to decode: the input (for a pronunciation model, its watched word: words.js) and the prefix. */
export const readInput = () => ({ text: watchedText(state.current, $('source').value), prefix: $('prefix').value.trim() });
/** What the compare and beam views translate: the watched decode's input, else what the fields say. */
export function auxSource() {
  const sess = state.sess;
  return sess ? { text: sess.text, prefix: sess.prefix } : readInput();
}
/** The session key of what the fields say now (a session with another key is out of date). */
export const inputKey = () => sessionKey(state.current, readInput().text, readInput().prefix);

const quoteList = (toks) => {
  const u = [...new Set(toks.map((t) => `“${showToken(t)}”`))];
  return u.length > 8 ? `${u.slice(0, 8).join(', ')}, …` : u.join(', ');
};

// The input as the current model sees it, worked out once per model, input and prefix: empty (nothing
// to decode), source tokens it does not know, prefix tokens it cannot output (the package refuses them).
let inputCheck = { key: null, model: null };
export function checkInput() {
  const key = inputKey(), m = state.current?.model ?? null;
  if (inputCheck.key === key && inputCheck.model === m) return inputCheck;
  const { text, prefix } = readInput();
  const ids = m?.config.tokenizer === 'ids';
  const r = { key, model: m, empty: !text.trim() || (ids && parseIds(text).length === 0), tokens: [], unknown: [], badPrefix: [] };
  if (m && !ids) {
    try {
      if (!r.empty) {
        const t = m.tokenize(text);
        r.tokens = t.tokens;
        r.unknown = unknownAt(m, t.ids, t.tokens, m.srcVocab);
      }
      if (prefix) {
        const t = m.tokenize(prefix, 'target');
        r.badPrefix = unknownAt(m, t.ids, t.tokens, m.tgtVocab).map((i) => t.tokens[i]);
      }
    } catch { /* (e.g. a lone surrogate) the decode reports it */ }
  }
  inputCheck = r;
  return r;
}

/**
 * What a forced prefix must be made of, in the model's own terms: its target side's kind of token
 * (characters, words, or ARPAbet phonemes when every target token is one) and a few of them.
 */
function targetHint(m) {
  const c = m.config;
  const specials = new Set([c.pad, c.bos, c.eos, c.unk]);
  const tokens = (m.tgtVocab ?? []).filter((_, id) => !specials.has(id));
  const phonemes = tokens.length > 0 && tokens.every((t) => Object.hasOwn(ARPABET_IPA, t));
  const kind = phonemes ? 'ARPAbet phonemes' : c.tgtTokenizer === 'char' ? 'characters' : 'words';
  const apart = c.tgtTokenizer === 'char' ? '' : ', separated by spaces';
  const example = $('prefix').placeholder.startsWith('e.g.') ? `; ${$('prefix').placeholder}` : '';
  return `Its outputs are ${kind}${apart}, such as ${quoteList(tokens.slice(0, 5))}${example}.`;
}

/** The notes under the input and prefix fields, for checkInput()'s result. */
function renderInputNotes(r) {
  const c = r.model?.config;
  const unit = c?.srcTokenizer === 'char' ? 'characters' : 'words';  // the input is the source side
  const most = r.unknown.length * 2 > r.tokens.length;
  const note = r.model && r.empty ? 'Type an input or pick an example: Play, Step and Run need something to decode.'
    : !r.unknown.length ? ''
      : most ? `Most of this input (${r.unknown.length} of ${r.tokens.length} ${unit}) is unknown to this model: it reads ${quoteList(r.unknown.map((i) => r.tokens[i]))} as <unk>, so its output says little about what you typed. Try one of the examples.`
        : `Unknown to this model, so read as <unk> (marked ? in the alignment and the inspector): ${quoteList(r.unknown.map((i) => r.tokens[i]))}.`;
  const el = $('source-note');
  el.textContent = note;
  el.hidden = !note;
  el.classList.toggle('warn', !!r.unknown.length && most);
  const bad = r.badPrefix;
  $('prefix-error').textContent = bad.length ? `${quoteList(bad)} ${bad.length === 1 ? 'is not a token' : 'are not tokens'} this model can output, so ${bad.length === 1 ? 'it' : 'they'} cannot be forced. ` +
    targetHint(r.model) : '';
  $('prefix-error').hidden = !bad.length;
}

let shownCheck = null;   // the checkInput() result the notes show

/** Enables what can be pressed now, and updates the notes when the input's check changed. */
export function updateButtons() {
  const had = document.activeElement;
  const check = checkInput();
  if (check !== shownCheck) renderInputNotes((shownCheck = check));
  // Nothing to decode (an empty input) or a prefix the package would refuse: the player waits.
  const ready = !!state.current?.model && !state.loading;
  const decodable = ready && !check.empty && check.badPrefix.length === 0;
  const sess = state.sess;
  const finished = !!sess && sess.done && sess.key === inputKey();
  $('encode').disabled = !decodable;
  $('play').disabled = !decodable;
  $('step').disabled = !decodable || finished;
  $('run').disabled = !decodable || finished;
  $('restart').disabled = !decodable || !sess;
  $('compare-run').disabled = !ready;
  $('compare-input-run').disabled = !ready;
  $('beam-run').disabled = !ready;
  const rows = sess?.steps.length ?? 0;
  for (const id of ['export-png', 'export-svg', 'export-csv', 'export-json']) $(id).disabled = rows === 0;
  writeLink();
  // Step or Run reaching the end disables the button that has the focus: hand it on instead of to <body>.
  if (had?.disabled && had.closest('.player')) refocus([$('restart'), $('play'), $('source')]);
}

/** Redraws the notes (the prefix hint they quote has arrived). */
export function refreshNotes() {
  shownCheck = null;
  updateButtons();
}

export function updatePlayButton() {
  const b = $('play');
  b.textContent = state.playing ? '❚❚ Pause' : '▶ Play';   // the name says what a press does next
  if (state.playing) setWatchState('playing');
  else if ($('watch').dataset.state === 'playing') setWatchState('ready', `Paused after step ${state.sess?.steps.length ?? 0}. Press ▶ Play or Step to go on.`);
}
