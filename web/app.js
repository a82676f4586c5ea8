// The demo page, "watch attention work, live": pick a shipped model (models/index.json) or load your
// own .safetensors (file picker or drag and drop), then play the decoder one engine step at a time;
// each step appends its attention row to the matrix as it is computed. Also: the step inspector
// (Q, K = V, scores, weights, context, next tokens), vanilla-vs-attention and score-function
// comparisons, beam search, what-if edits (forced prefix, moved attention) and exports.
// This file is the wiring: the page's state is one object (controller/state.js) and each concern is a
// module of controller/ with a small interface (models, controls, playback, matrix, links, inspector,
// what-if, compare, beam, exports); here they are connected to each other and to the page's controls.
// Only the watched decode runs on this thread: every other translation runs in the engine Worker
// (controller/engine.js). The training panel and the length study (./train/, ./study/) mount themselves at the end.
import { buildInfo } from '../wasm/attnseq.js';
import { h } from './views/dom.js';
import { state } from './controller/state.js';
import { $, errText, showError, clearError, hideTip } from './controller/page.js';
import { startModels, selectModel, loadUserBytes, loadUserFile, showFileError } from './controller/models.js';
import { speed, updateButtons } from './controller/controls.js';
import { resetWord } from './controller/words.js';
import { setupPlayback, newSession, ensureSession, stepPressed, loop, stopLoop, play, restart, rewake, inputChanged } from './controller/playback.js';
import { setupMatrix, highlight, redrawMatrix, showUnits } from './controller/matrix.js';
import { renderLinksView } from './controller/links.js';
import { setupInspector, selectStep, stepBy, followLatest, renderInspector } from './controller/inspector.js';
import { whatIf, afterFinish, clearWhatIfs, hideWhatIfNote } from './controller/whatif.js';
import { runCompare, compareInputs } from './controller/compare.js';
import { runBeam, setupBeam } from './controller/beam.js';
import { exportAs } from './controller/exports.js';

// How the modules reach each other where a lower one acts on a higher one's behalf.
setupMatrix({ onSelect: selectStep, onMove: whatIf });   // a row pressed, a cell dragged onto another column
setupInspector({ onLook: whatIf });                      // ◎: look only at this source token
setupPlayback({
  onFinish: (why) => {
    afterFinish(why);
    // The compare and beam views follow the decode that has just ended (in the Worker, after this task).
    setTimeout(() => { runCompare(); runBeam(); }, 0);
  },
});

function wire() {
  $('model').addEventListener('change', () => { showFileError(null); selectModel($('model').value); });
  $('file').addEventListener('change', () => {
    const f = $('file').files[0];
    if (f) loadUserFile(f);
  });
  $('encode').addEventListener('click', () => {
    stopLoop();
    if (!state.current?.model) return;
    try {
      clearError();
      hideWhatIfNote();
      newSession();
    } catch (e) {
      showError(errText(e));
    }
  });
  // Pressed by the visitor (not the opening autoplay): on a narrow screen the matrix is below the
  // input, so it is brought into view as it starts to fill.
  const revealMatrix = () => {
    const top = $('alignment').getBoundingClientRect().top;
    if (top > innerHeight - 200) $('watch').scrollIntoView({ block: 'start', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  };
  $('play').addEventListener('click', (e) => { play(); if (e.isTrusted) revealMatrix(); });
  $('step').addEventListener('click', () => { stopLoop(); stepPressed(); });
  $('run').addEventListener('click', () => { stopLoop(); if (ensureSession()) loop('run'); });
  $('restart').addEventListener('click', restart);
  const speedOut = () => { $('speed-out').textContent = speed()[1]; };
  $('speed').addEventListener('input', () => { speedOut(); rewake(); });
  speedOut();
  $('source').addEventListener('input', () => { state.sourceEdited = true; resetWord(); inputChanged(); });
  $('prefix').addEventListener('input', inputChanged);
  for (const id of ['source', 'prefix']) {
    $(id).addEventListener('keydown', (e) => { if (e.key === 'Enter' && !$('play').disabled) { stopLoop(); play(); revealMatrix(); } });
  }
  $('prev-step').addEventListener('click', () => stepBy(-1));
  $('next-step').addEventListener('click', () => stepBy(1));
  $('follow').addEventListener('click', followLatest);
  $('whatif-clear').addEventListener('click', clearWhatIfs);
  // A subword model's matrix by words or by pieces.
  for (const [id, words] of [['units-words', true], ['units-pieces', false]]) {
    $(id).addEventListener('click', () => {
      if (state.byWords === words) return;
      state.byWords = words;
      showUnits(state.current?.model);
      redrawMatrix();
      renderLinksView();
    });
  }
  // The matrix's cells: weights 0 → 1, weights on a log scale (0.0003 and 0.00002 differ), or each
  // step's raw scores (which decide the weights however large they are: a model whose weights all read
  // 1.00 or 0.00 still shows how close the runners-up were).
  const SCALES = {
    linear: 'weight 0 → 1 (viridis), two decimals',
    log: 'weight on a log scale, 10⁻⁶ (dark) → 1 (bright): 3e-4 is 0.0003, 1−2e-5 is 0.99998',
    scores: 'raw scores before the softmax, dark at the row\'s lowest, bright at its highest (a subword model\'s by pieces)',
  };
  for (const scale of Object.keys(SCALES)) {
    $(`scale-${scale}`).addEventListener('click', () => {
      if (state.scale === scale) return;
      state.scale = scale;
      for (const x of Object.keys(SCALES)) $(`scale-${x}`).setAttribute('aria-pressed', String(x === scale));
      $('scale-legend').textContent = SCALES[scale];
      redrawMatrix();
    });
  }
  // An ensemble's matrix: the members' mean or one member's weights (the inspector shows that member).
  $('member').addEventListener('change', () => {
    state.member = $('member').value === '' ? null : Number($('member').value);
    redrawMatrix();
    renderLinksView();
    renderInspector();
  });
  $('compare-run').addEventListener('click', runCompare);
  // Two inputs on one model: the second input is the visitor's once typed (until then an example).
  $('compare-input').addEventListener('input', () => { $('compare-input').dataset.auto = 'false'; });
  $('compare-input-run').addEventListener('click', compareInputs);
  $('compare-input').addEventListener('keydown', (e) => { if (e.key === 'Enter' && !$('compare-input-run').disabled) compareInputs(); });
  $('beam-run').addEventListener('click', runBeam);
  setupBeam();
  $('beam-size').addEventListener('keydown', (e) => { if (e.key === 'Enter') runBeam(); });
  for (const kind of ['png', 'svg', 'csv', 'json']) $(`export-${kind}`).addEventListener('click', () => exportAs(kind));

  // Drag and drop a checkpoint anywhere on the page.
  const hasFiles = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types ?? []).includes('Files');
  let depth = 0;
  document.addEventListener('dragenter', (e) => { if (hasFiles(e)) { depth++; $('drop-overlay').hidden = false; } });
  document.addEventListener('dragleave', (e) => { if (hasFiles(e) && --depth <= 0) { depth = 0; $('drop-overlay').hidden = true; } });
  document.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
  document.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    $('drop-overlay').hidden = true;
    const f = e.dataTransfer.files[0];
    if (f) loadUserFile(f);
  });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') { hideTip(); highlight(null); } });
}

wire();
updateButtons();
startModels();
buildInfo().then((s) => { $('build').textContent = `engine: ${s}`; }).catch(() => {});

// The training panel and the length study live in their own modules (another part of the demo).
// api.loadModelBytes(bytes, label): adds a checkpoint to "Your models" and selects it; resolves to its
// picker id, rejects when the checkpoint is refused (the message is shown on the page too).
const api = { loadModelBytes: (bytes, label) => loadUserBytes(bytes, label ?? 'trained model') };
// A panel whose module fails to load or mount says so in its place and in the console, instead of
// leaving an empty section. (The import() calls stay literal so bundlers still see them.)
function mountPanel(id, what, load) {
  load().then((m) => m.mount($(id), api)).catch((e) => {
    console.error(`attnseq demo: the ${what} could not be loaded:`, e);
    $(id).append(h('p', { class: 'errors panel-error', role: 'alert' },
      `The ${what} could not be loaded, so it is missing from this page; reloading may help. (${errText(e)})`));
  });
}
mountPanel('train-panel', 'training panel', () => import('./train/panel.js'));
mountPanel('length-study', 'length study', () => import('./study/panel.js'));
