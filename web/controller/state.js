// The demo page's state in one object: the models the picker knows and the one selected, the decode
// being watched and the step inspected, and whether it is playing. Every controller module reads and
// writes it here; a module keeps only its own caches of what it last drew (the inspector's shown step,
// the live matrix's window). Nothing here touches the DOM.
export const state = {
  // Models (web/controller/catalog.js, models.js)
  entries: new Map(),   // id -> { id, title, file, task, examples, user, model, promise, error, source, key }
  manifest: [],         // models/index.json entries
  current: null,        // the selected entry
  loading: false,       // a model is being loaded for the picker
  loadSeq: 0,           // the latest load wins (a slow default must not override a user's file)
  pendingUser: 0,       // user loads in flight: the default model is then not auto-selected
  sourceEdited: false,  // the user typed the input (model changes keep it)

  // The watched decode (web/controller/session.js makes it, playback.js steps it)
  sess: null,
  byWords: true,        // a subword model's matrix by words (pieces merged), or by pieces (the toggle)
  member: null,         // an ensemble's matrix: its members' mean (null) or member m's weights
  scale: 'linear',      // the matrix's cells: 'linear' weights, 'log' weights or raw 'scores' (a step's own)
  selected: null,       // the inspected step; null follows the latest
  word: 0,              // a pronunciation model's input of several words: the one watched (words.js)

  // Playback (web/controller/playback.js)
  loopId: 0,            // bumping it stops a play / run loop
  playing: false,
};
