// Ships what scripts/train-sigmorphon.sh chose for each language of the SIGMORPHON 2021 G2P task:
//   - copies the language's members (OUT/LANG.ship) to models/g2p/ID-K.safetensors (K from 1),
//   - keeps the recipe's record (OUT/LANG.dev.txt, .time, .test.txt) as models/g2p/LANG.txt,
//   - writes the language's models/index.json entry (after g2p-en, in the task's order), and the
//     models package's table of ids and sizes (tools/pack_models.mjs),
//   - rewrites models/README.md's table of the languages shipped so far, with each one's dev WER at
//     beam 5 and greedy (measured here, with the shipped files), its first member's alone (seed 1,
//     beam 5), its test WER and PER (the recipe's one test decode) and the baseline
//     (data/sigmorphon2021-g2p/README.md); a subtask's mean row once all its languages are shipped.
// tests/cpp/test_models.cpp re-measures every figure of that table.
//   node tools/ship_sigmorphon.mjs OUT [LANG...]    (default: every language with OUT/LANG.test.json)
//   env CLI: the attnseq binary (default build/native/attnseq)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DATA = path.join(ROOT, 'data/sigmorphon2021-g2p');
const CLI = process.env.CLI ?? path.join(ROOT, 'build/native/attnseq');

// The task's languages in the order the page lists them (Korean first, then the low subtask, the
// medium one and English): the file stem, the page's id (ISO 639-1 where there is one), the language's
// own name and its English name. The example words are the first five of the dev file, except for
// Korean, whose examples show the sound changes its spelling leaves out (issue 25).
export const LANGUAGES = [
  ['kor', 'ko', '한국어', 'Korean'],
  ['ady', 'ady', 'Адыгабзэ', 'Adyghe'],
  ['gre', 'el', 'Ελληνικά', 'Greek'],
  ['ice', 'is', 'Íslenska', 'Icelandic'],
  ['ita', 'it', 'Italiano', 'Italian'],
  ['khm', 'km', 'ភាសាខ្មែរ', 'Khmer'],
  ['lav', 'lv', 'Latviešu', 'Latvian'],
  ['mlt_latn', 'mt', 'Malti', 'Maltese'],
  ['rum', 'ro', 'Română', 'Romanian'],
  ['slv', 'sl', 'Slovenščina', 'Slovene'],
  ['wel_sw', 'cy', 'Cymraeg (y De)', 'Welsh'],
  ['arm_e', 'hy', 'Հայերեն (արևելյան)', 'Armenian'],
  ['bul', 'bg', 'Български', 'Bulgarian'],
  ['dut', 'nl', 'Nederlands', 'Dutch'],
  ['fre', 'fr', 'Français', 'French'],
  ['geo', 'ka', 'ქართული', 'Georgian'],
  ['hbs_latn', 'sh', 'Srpskohrvatski', 'Serbo-Croatian'],
  ['hun', 'hu', 'Magyar', 'Hungarian'],
  ['jpn_hira', 'ja', '日本語（ひらがな）', 'Japanese'],
  ['vie_hanoi', 'vi', 'Tiếng Việt (Hà Nội)', 'Vietnamese'],
  ['eng_us', 'en-us', 'English (US)', 'American English'],
].map(([stem, code, native, english]) => ({ stem, code, native, english, id: `g2p-${code}` }));
const KOREAN_EXAMPLES = ['국물', '음악', '같이', '신라', '좋다'];
const TERMS = 'Trained on the SIGMORPHON 2021 G2P task\'s data (WikiPron, from Wiktionary), ' +
  'CC BY-SA 3.0 Unported: data/sigmorphon2021-g2p/README.md.';
const TABLE_HEAD = '| language | id | subtask | models | size | dev WER, beam 5 | dev WER, greedy | dev WER, one model | test WER | test PER | baseline |';

const subtaskOf = (stem) => ['high', 'medium', 'low'].find((s) => existsSync(path.join(DATA, s, `${stem}_train.tsv`)));
const fileOf = (stem, split) => path.join(DATA, subtaskOf(stem), `${stem}_${split}.tsv`);

/** The baselines' test WER by language, from the data README's table (three languages to a row). */
function baselines() {
  const out = {};
  for (const line of readFileSync(path.join(DATA, 'README.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    for (let i = 1; i + 1 < cells.length; i++) if (/^[a-z_]+$/.test(cells[i]) && /^\d+\.\d\d$/.test(cells[i + 1])) out[cells[i]] = cells[i + 1];
  }
  return out;
}

const evalJSON = (files, stem, beam) => JSON.parse(execFileSync(CLI, ['eval', ...files.flatMap((f) => ['--model', f]),
  '--pron', fileOf(stem, 'dev'), '--beam', String(beam), '--threads', '2', '--json'], { encoding: 'utf8' }));
const pct = (x) => (100 * x).toFixed(2);

const G2P_DIR = path.join(ROOT, 'models/g2p');
/** The members a recipe run chose for a language (OUT/LANG.ship: one file a line). */
const shipList = (out, stem) => readFileSync(path.join(out, `${stem}.ship`), 'utf8').trim().split('\n');
/** The files models/g2p/ holds for the language with page code `code` (CODE-K.safetensors). */
const shippedFiles = (code) => (existsSync(G2P_DIR) ? readdirSync(G2P_DIR) : [])
  .filter((f) => f.startsWith(`${code}-`) && f.endsWith('.safetensors')).map((f) => path.join(G2P_DIR, f));
const bytesOf = (files) => files.reduce((n, f) => n + statSync(f).size, 0);

function ship(out, lang) {
  const { stem, id, native, english } = lang;
  const members = shipList(out, stem);
  const test = JSON.parse(readFileSync(path.join(out, `${stem}.test.json`), 'utf8'));
  const record = ['dev.txt', 'time', 'test.txt'].map((x) => readFileSync(path.join(out, `${stem}.${x}`), 'utf8').trimEnd()).join('\n');
  mkdirSync(G2P_DIR, { recursive: true });
  for (const f of shippedFiles(lang.code)) rmSync(f);
  const files = members.map((m, i) => {
    const name = `g2p/${lang.code}-${i + 1}.safetensors`;
    copyFileSync(m, path.join(ROOT, 'models', name));
    return name;
  });
  writeFileSync(path.join(G2P_DIR, `${stem}.txt`), `${record}\n`);
  const abs = files.map((f) => path.join(ROOT, 'models', f));
  const beam5 = evalJSON(abs, stem, 5), greedy = evalJSON(abs, stem, 1), one = evalJSON(abs.slice(0, 1), stem, 5);
  const int8 = members.every((m) => m.endsWith('.int8.safetensors'));
  const examples = stem === 'kor' ? KOREAN_EXAMPLES
    : readFileSync(fileOf(stem, 'dev'), 'utf8').split('\n').filter(Boolean).slice(0, 5).map((l) => l.split('\t')[0]);
  const entry = { id, files, task: 'pron', language: lang.code, title: `${native} — ${english} pronunciation (IPA)`, terms: TERMS, examples };
  const row = {
    stem, id, subtask: subtaskOf(stem), models: `${files.length}${int8 ? ' (int8)' : ''}`,
    bytes: abs.reduce((s, f) => s + statSync(f).size, 0),
    dev5: pct(beam5.wer), dev1: pct(greedy.wer), single: pct(one.wer), wer: pct(test.wer), per: pct(test.per), lang,
  };
  console.log(`${stem}: ${files.length} file(s), dev WER ${row.dev5} (beam 5), ${row.dev1} (greedy), test WER ${row.wer}, PER ${row.per}`);
  return { entry, row };
}

function writeIndex(entries) {
  const file = path.join(ROOT, 'models/index.json');
  const index = JSON.parse(readFileSync(file, 'utf8'));
  const ours = new Set(LANGUAGES.map((l) => l.id));
  const old = new Map(index.models.filter((m) => ours.has(m.id)).map((m) => [m.id, m]));
  for (const e of entries) old.set(e.id, e);
  const shipped = LANGUAGES.filter((l) => old.has(l.id)).map((l) => old.get(l.id));
  const rest = index.models.filter((m) => !ours.has(m.id));
  const at = rest.findIndex((m) => m.id === 'g2p-en') + 1;
  index.models = [...rest.slice(0, at), ...shipped, ...rest.slice(at)];
  writeFileSync(file, `{\n  "models": [\n${index.models.map((m) => `    ${JSON.stringify(m)}`).join(',\n')}\n  ]\n}\n`);
}

// The table's rows: the languages shipped now and those the README already has.
function writeTable(rows) {
  const file = path.join(ROOT, 'models/README.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(TABLE_HEAD);
  if (start < 0) throw new Error(`models/README.md has no table starting "${TABLE_HEAD}"`);
  const end = text.indexOf('\n\n', start);
  const lines = text.slice(start, end).split('\n').slice(2).filter((l) => l.startsWith('| `'));
  const base = baselines();
  const byStem = new Map(lines.map((l) => [/^\| `([a-z_]+)`/.exec(l)[1], l]));
  for (const r of rows) {
    byStem.set(r.stem, `| \`${r.stem}\` ${r.lang.native}, ${r.lang.english} | \`${r.id}\` | ${r.subtask} | ${r.models} | ` +
      `${(r.bytes / 1e6).toFixed(2)} MB | ${r.dev5} | ${r.dev1} | ${r.single} | ${r.wer} | ${r.per} | ${base[r.stem]} |`);
  }
  const body = LANGUAGES.filter((l) => byStem.has(l.stem)).map((l) => byStem.get(l.stem));
  for (const sub of ['low', 'medium', 'high']) {
    const langs = LANGUAGES.filter((l) => subtaskOf(l.stem) === sub);
    if (!langs.every((l) => byStem.has(l.stem))) continue;
    const col = (i) => langs.map((l) => Number(byStem.get(l.stem).split('|')[i].trim()));
    const mean = (xs) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2);
    body.push(`| **${sub} mean** | | ${sub} | | | ${mean(col(6))} | ${mean(col(7))} | ${mean(col(8))} | ${mean(col(9))} | ${mean(col(10))} | ${mean(col(11))} |`);
  }
  const table = [TABLE_HEAD, `|${'---|'.repeat(11)}`, ...body].join('\n');
  writeFileSync(file, text.slice(0, start) + table + text.slice(end));
}

const [out, ...only] = process.argv.slice(2);
if (!out) {
  console.error('usage: node tools/ship_sigmorphon.mjs OUT [LANG...]');
  process.exit(2);
}
const todo = LANGUAGES.filter((l) => (only.length ? only.includes(l.stem) : existsSync(path.join(out, `${l.stem}.test.json`))));
for (const s of only) if (!LANGUAGES.some((l) => l.stem === s)) throw new Error(`no language '${s}' in the task`);
// The 21 languages together may take at most 30 MB (issue 25): checked before anything is copied, on
// the files that would ship (this run's members, and what models/g2p/ holds for the other languages).
const LIMIT_ALL = 30e6;
const total = LANGUAGES.reduce((n, l) => n + bytesOf(todo.includes(l) ? shipList(out, l.stem) : shippedFiles(l.code)), 0);
if (total > LIMIT_ALL) {
  console.error(`the 21 languages would take ${(total / 1e6).toFixed(2)} MB, over the ${LIMIT_ALL / 1e6} MB they may: nothing shipped`);
  process.exit(1);
}
const shipped = todo.map((l) => ship(out, l));
writeIndex(shipped.map((s) => s.entry));
writeTable(shipped.map((s) => s.row));
execFileSync(process.execPath, [path.join(ROOT, 'tools/pack_models.mjs')], { stdio: 'inherit' });  // the models package's table
