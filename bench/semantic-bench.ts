// What a semantic-cache lookup costs, the embedding call excluded: the nearest vector of one scope
// in this process's index (SemanticIndex over usearch, on its own thread: the time is the message
// there and back and the search) holding ENTRIES vectors of DIMENSIONS floats,
// the size of a common embedding model's output. Vectors are clustered like real embeddings (topics:
// a centroid plus noise; uniform random vectors have no neighbourhoods for any index to find), and
// each query is a paraphrase of a stored entry (that entry plus noise, cosine ≈ 0.97). The index is
// filled through the bulk path a starting process uses to load what other processes stored.
import { SemanticIndex } from '../runtime/pipeline/cache/semantic-index.ts';
import { percentile } from './load.ts';

export interface SemanticResult {
  entries: number;
  dimensions: number;
  fillSeconds: number;
  lookupMicrosP50: number;
  lookupMicrosP99: number;
  /** The search alone on the index thread (the two messages excluded). */
  searchMicrosP50: number;
  searchMicrosP99: number;
  /** Share of queries whose match was the entry they paraphrase. */
  foundShare: number;
}

const FILL_BATCH = 5000;
const QUERIES = 2000;
const TOPICS = 1000;
const FAR = Date.now() + 365 * 24 * 3600 * 1000;

/** `progress` is told how far the fill has come. */
export async function semanticBench(entries: number, dimensions: number, progress: (line: string) => void = () => {}): Promise<SemanticResult> {
  let seed = 42;
  // A small deterministic generator: the same vectors on every run.
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648 - 0.5;
  };
  const noisy = (base: Float32Array, amount: number): Float32Array => {
    const v = new Float32Array(dimensions);
    for (let i = 0; i < dimensions; i++) v[i] = base[i] + random() * amount;
    return v;
  };
  const zero = new Float32Array(dimensions);
  const topics = Array.from({ length: TOPICS }, () => noisy(zero, 1));
  const targets = new Map<number, Float32Array>();
  for (let q = 0; q < QUERIES; q++) targets.set((q * 7919) % entries, zero);

  const index = await SemanticIndex.create(entries);
  const started = performance.now();
  for (let done = 0; done < entries; done += FILL_BATCH) {
    const batch = [];
    for (let e = done; e < Math.min(entries, done + FILL_BATCH); e++) {
      const vector = noisy(topics[e % TOPICS], 0.6);
      if (targets.has(e)) targets.set(e, vector);
      batch.push({ scope: 'bench', vector, entryKey: `k${e}`, expiresAt: FAR });
    }
    index.addMany(batch);
    await index.settled();
    progress(`semantic: filled ${Math.min(entries, done + FILL_BATCH)}/${entries} vectors`);
  }
  const fillSeconds = (performance.now() - started) / 1000;

  const queries = [...targets].map(([entry, vector]) => ({ entry, query: noisy(vector, 0.25) }));
  // Warm-up, then the measured lookups.
  for (let i = 0; i < 200; i++) await index.nearest('bench', queries[i % queries.length].query);
  const micros: number[] = [];
  const searchMicros: number[] = [];
  let found = 0;
  for (const { entry, query } of queries) {
    const start = performance.now();
    const match = await index.nearest('bench', query);
    micros.push((performance.now() - start) * 1000);
    searchMicros.push(index.lastSearchMicros);
    if (match?.entryKey === `k${entry}`) found++;
  }
  micros.sort((a, b) => a - b);
  searchMicros.sort((a, b) => a - b);
  await index.close();
  return {
    entries, dimensions, fillSeconds, foundShare: found / queries.length,
    lookupMicrosP50: percentile(micros, 50), lookupMicrosP99: percentile(micros, 99),
    searchMicrosP50: percentile(searchMicros, 50), searchMicrosP99: percentile(searchMicros, 99),
  };
}
