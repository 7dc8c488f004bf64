// Embedding vectors that make paraphrases close, for the mock providers (`gateway mock-provider` and
// the test mocks): a hashed bag of words. Each lower-cased word adds one signed unit at the index its
// hash picks, and the sum is normalised, so the cosine similarity of two texts grows with the words
// they share, whatever their order, case or punctuation. Enough to watch a semantic cache match a
// rewording without a provider account; no stand-in for a real embedding model.
import { createHash } from 'node:crypto';

/** A unit vector of `dimensions` for `text` (the zero vector for a text without words). */
export function bagOfWordsOf(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of text.toLowerCase().split(/[^a-z0-9']+/).filter((w) => w !== '')) {
    const digest = createHash('sha256').update(word).digest();
    vector[digest.readUInt32BE(0) % dimensions] += digest[4] & 1 ? 1 : -1;
  }
  let norm = 0;
  for (const v of vector) norm += v * v;
  const scale = norm === 0 ? 1 : 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) vector[i] *= scale;
  return vector;
}
