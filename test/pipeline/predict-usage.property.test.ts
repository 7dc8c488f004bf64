// Cloud B's embeddings answer's usage is the sum of its predictions' token counts, with the
// characters its metadata bills (the older models'), read as the bytes go by: however the answer is
// cut into chunks (a name or a number split between two), whatever spacing it is written with, the
// sum is the same; an answer without counts has no usage, one without metadata no characters. Its image
// generation's usage is the images its predictions carry (bytes or a storage URI; a withheld one
// not), counted the same way, however the answer is cut.
import { fc, test } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { PredictImageCount, PredictTokenCounts } from '../../runtime/pipeline/log/predict-usage.ts';

/** An answer as the service writes it (statistics before the values), with `space` around its colons and commas; `characters` billed, or no metadata when null. */
function answer(counts: number[], space: string, dimensions: number, characters: number | null = counts.length * 7): string {
  const predictions = counts.map((count, i) =>
    `{"embeddings":{"statistics":{"truncated"${space}:${space}false,${space}"token_count"${space}:${space}${count}},"values":[${Array.from({ length: dimensions }, (_, d) => (((i + 1) * (d + 3)) % 17) / 17 - 0.5).join(',')}]}}`);
  const metadata = characters === null ? '' : `,${space}"metadata"${space}:${space}{"billableCharacterCount"${space}:${space}${characters}}`;
  return `{"predictions":[${predictions.join(`,${space}`)}]${metadata},"deployedModelId":"text-embedding-005"}`;
}

/** `text` cut at `cuts` (fractions of its length), each piece fed in turn to `counts`: its usage. */
function fed<C extends PredictTokenCounts | PredictImageCount>(text: string, cuts: number[], counts: C): ReturnType<C['usage']> {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    counts.write(bytes.subarray(from, to));
    from = to;
  }
  return counts.usage() as ReturnType<C['usage']>;
}

const summed = (text: string, cuts: number[]) => fed(text, cuts, new PredictTokenCounts());

/** An image prediction as the service writes it: its bytes, where it was stored, or the reason it was withheld. */
const imagePrediction = fc.oneof(
  fc.string({ maxLength: 40 }).map((bytes) => ({ billed: true, json: { mimeType: 'image/png', bytesBase64Encoded: Buffer.from(bytes).toString('base64') } })),
  fc.webSegment().map((name) => ({ billed: true, json: { gcsUri: `gs://bucket/${name}.png`, mimeType: 'image/png' } })),
  fc.string({ maxLength: 30 }).map((reason) => ({ billed: false, json: { raiFilteredReason: reason } })),
);

test.prop([fc.array(imagePrediction, { maxLength: 8 }), fc.boolean(), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 })], { numRuns: 300 })(
  'the images an image generation answer carries, however it is cut',
  (predictions, spaced, cuts) => {
    const text = JSON.stringify({ predictions: predictions.map((p) => p.json) }, null, spaced ? 1 : undefined);
    expect(fed(text, cuts, new PredictImageCount())).toEqual({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, images: predictions.filter((p) => p.billed).length, estimated: false });
  },
);

it('counts the images of an answer cut byte by byte, a short name wholly in a chunk\'s carried end once', () => {
  const text = JSON.stringify({ predictions: [{ gcsUri: 'gs://b/0.png' }, { gcsUri: 'gs://b/1.png' }, { bytesBase64Encoded: 'AAAA' }] });
  for (const cuts of [Array.from({ length: text.length }, (_, i) => i / text.length), [0.5], []]) expect(fed(text, cuts, new PredictImageCount()).images).toBe(3);
});

test.prop([
  fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 12 }),
  fc.constantFrom('', ' ', '\n  '),
  fc.integer({ min: 0, max: 40 }),
  fc.option(fc.integer({ min: 0, max: 10_000_000 })),
  fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }),
], { numRuns: 300 })('the sum of the token counts and the billed characters, however the answer is cut', (counts, space, dimensions, characters, cuts) => {
  const total = counts.reduce((a, b) => a + b, 0);
  expect(summed(answer(counts, space, dimensions, characters), cuts)).toEqual({
    inputTokens: total, outputTokens: 0, cachedInputTokens: 0, totalTokens: total, estimated: false, ...(characters === null ? {} : { inputCharacters: characters }),
  });
});

it('cut byte by byte, too', () => {
  const text = answer([5, 123_456, 7], ' ', 3, 98_765);
  expect(summed(text, Array.from({ length: text.length }, (_, i) => i / text.length))).toMatchObject({ inputTokens: 123_468, inputCharacters: 98_765 });
});

it('leaves out a count no service reports (past 2^53: Infinity as a number)', () => {
  expect(summed(answer([3, 4], '', 2).replace('"token_count":4', `"token_count":${'9'.repeat(400)}`), [0.3])?.inputTokens).toBe(3);
});

it('an answer without counts (an error, a model that reports none) has no usage', () => {
  expect(summed('{"predictions":[{"embeddings":{"values":[0.1,0.2]}}]}', [0.5])).toBeNull();
  expect(summed('{"error":{"code":400,"message":"token_count must be given"}}', [])).toBeNull();
});
