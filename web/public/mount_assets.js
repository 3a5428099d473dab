// The assets a view needs, fetched relative to this file (not to the page that embeds it) and only
// once the view shown asks for them (the app's needsWordVectors(), needsPrices(), needsTrainedHeads()):
// the 1.5 MB word vectors for the views of words, prices.csv for the prices view, the trained heads
// for views 3 and 5. A part of mount.js's mount(): afterFrame() runs after every frame.
const here = (name) => new URL(name, import.meta.url).href;

export function attachAssetLoading(attnlab) {
  let vectors = false, prices = false, heads = false;  // each fetched once
  return {
    afterFrame() {
      if (!vectors && attnlab.needsWordVectors()) {
        vectors = true;
        loadWordVectors(attnlab);
      }
      if (!prices && attnlab.needsPrices()) {
        prices = true;
        loadPrices(attnlab);
      }
      if (!heads && attnlab.needsTrainedHeads()) {
        heads = true;
        loadTrainedHeads(attnlab);
      }
    },
  };
}

// The 1.5 MB GloVe asset, fetched once a view of words is shown. Meanwhile the words get hashed
// stand-in vectors and the page shows how much has arrived.
async function loadWordVectors(attnlab) {
  try {
    const response = await fetch(here('word-vectors.bin'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadWordVectors(await readWithProgress(response, (f) => attnlab.wordVectorsProgress(f)));
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.wordVectorsFailed(String(e && e.message ? e.message : e));
  }
}

// The body's bytes, reporting the share received so far (Content-Length may count compressed bytes:
// the share is then an estimate, kept below 1 until the end).
async function readWithProgress(response, progress) {
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    progress(Math.min(received / total, 0.99));
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}

// heads-trained-brown.bin (200 KB) for views 3 and 5, parsed by the engine side.
async function loadTrainedHeads(attnlab) {
  try {
    const response = await fetch(here('heads-trained-brown.bin'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadTrainedHeads(new Uint8Array(await response.arrayBuffer()));
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.trainedHeadsFailed(String(e && e.message ? e.message : e));
  }
}

// prices.csv (30 KB) for the prices view, parsed by the engine side like the word vectors.
async function loadPrices(attnlab) {
  try {
    const response = await fetch(here('prices.csv'));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const error = attnlab.loadPrices(await response.text());
    if (error) console.warn(`attnlab: ${error}`);
  } catch (e) {
    attnlab.pricesFailed(String(e && e.message ? e.message : e));
  }
}
