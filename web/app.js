// The minimal demo page: load a checkpoint, encode the source, and step the decoder; every step
// appends one row (its attention weights) to the alignment table as it is computed.
import { loadModel, AttnseqError } from '../wasm/attnseq.js';

const $ = (id) => document.getElementById(id);
let model = null, enc = null, dec = null;

// Viridis anchors (perceptually uniform, colour-blind safe), interpolated linearly.
const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
export function viridis(x) {
  const t = Math.min(1, Math.max(0, x)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(t)), f = t - i;
  const c = VIRIDIS[i].map((v, k) => Math.round(v + f * (VIRIDIS[i + 1][k] - v)));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

function showError(e) {
  $('error').textContent = e instanceof AttnseqError ? `${e.code}: ${e.message}` : String(e.message ?? e);
}

function reset() {
  dec?.dispose();
  enc?.dispose();
  dec = enc = null;
  $('alignment').replaceChildren();
  $('output').textContent = '';
  $('step').disabled = $('run').disabled = true;
}

async function onFile() {
  const f = $('file').files[0];
  if (!f) return;
  $('error').textContent = '';
  reset();
  try {
    const m = await loadModel(new Uint8Array(await f.arrayBuffer()));
    model?.dispose();
    model = m;
    const c = model.config;
    $('model-info').textContent = `${f.name}: ${c.cell.toUpperCase()} ${c.style}/${c.score}` +
      `${c.inputFeeding ? ' + input feeding' : ''}, hidden ${c.hidden}, vocab ${c.srcVocabSize} → ${c.tgtVocabSize}, tokenizer ${c.tokenizer}`;
    $('encode').disabled = false;
  } catch (e) {
    showError(e);
  }
}

function parseSource(text) {
  if (model.config.tokenizer !== 'ids') return text;
  return text.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
}

function onEncode() {
  $('error').textContent = '';
  reset();
  try {
    enc = model.encode(parseSource($('source').value));
    dec = model.decoder(enc, { topk: 0 });
    const head = document.createElement('tr');
    head.append(document.createElement('th'));
    for (const t of enc.tokens) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = t;
      head.append(th);
    }
    $('alignment').append(head);
    $('step').disabled = $('run').disabled = false;
  } catch (e) {
    showError(e);
  }
}

function onStep() {
  if (!dec || dec.done) return false;
  try {
    const r = dec.step();
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = r.text;
    tr.append(th);
    for (const w of r.attention) {
      const td = document.createElement('td');
      td.textContent = w.toFixed(2);
      td.style.backgroundColor = viridis(w);
      if (w < 0.55) td.classList.add('dark');
      td.title = `weight ${w.toFixed(4)}`;
      tr.append(td);
    }
    $('alignment').append(tr);
    $('output').textContent += (model.config.tokenizer === 'char' || $('output').textContent === '' ? '' : ' ') +
      (r.token === model.config.eos ? '' : r.text);
    if (r.done) $('step').disabled = $('run').disabled = true;
    return !r.done;
  } catch (e) {
    showError(e);
    return false;
  }
}

async function onRun() {
  // One step per animation frame, so rows appear as they are computed.
  while (onStep()) await new Promise((r) => requestAnimationFrame(r));
}

$('file').addEventListener('change', onFile);
$('encode').addEventListener('click', onEncode);
$('step').addEventListener('click', onStep);
$('run').addEventListener('click', onRun);
$('source').addEventListener('keydown', (e) => { if (e.key === 'Enter' && !$('encode').disabled) onEncode(); });
