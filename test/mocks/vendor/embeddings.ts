// POST /v1/embeddings: deterministic unit vectors derived from each input's hash.
import { createHash } from 'node:crypto';
import type { MockContext } from './context.ts';
import { jsonObject } from './context.ts';
import { badRequest, sendJson } from './respond.ts';
import { words } from './reply-text.ts';
import { bagOfWordsOf } from '../../../runtime/cli/bag-of-words.ts';

const DEFAULT_DIMENSIONS = 16;
const MAX_DIMENSIONS = 4096;

function inputTexts(input: unknown): string[] | null {
  if (typeof input === 'string') return input === '' ? null : [input];
  if (!Array.isArray(input) || input.length === 0) return null;
  if (input.every((i) => typeof i === 'string' && i !== '')) return input as string[];
  if (input.every((i) => Number.isInteger(i))) return [(input as number[]).join(' ')];
  if (input.every((i) => Array.isArray(i) && i.length > 0 && i.every((t) => Number.isInteger(t)))) {
    return (input as number[][]).map((tokens) => tokens.join(' '));
  }
  return null;
}

export function embeddingOf(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let seed = createHash('sha256').update(text).digest();
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    if (i % 32 === 0 && i > 0) seed = createHash('sha256').update(seed).digest();
    const v = seed[i % 32] / 127.5 - 1;
    vector[i] = v;
    norm += v * v;
  }
  const scale = norm === 0 ? 1 : 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) vector[i] *= scale;
  return vector;
}

/** The mock model whose vectors make paraphrases close: a hashed bag of words (the semantic-cache tests). */
export const BAG_OF_WORDS_MODEL = 'bag-of-words';

export async function embeddings(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request. The vendor API expects a JSON payload.');
  if (typeof body.model !== 'string' || body.model === '') return badRequest(ctx, 'you must provide a model parameter');
  const texts = inputTexts(body.input);
  if (texts === null) return badRequest(ctx, "'$.input' is invalid. Please check the API reference.", 'input');
  const dimensions = body.dimensions ?? (body.model === BAG_OF_WORDS_MODEL ? 256 : DEFAULT_DIMENSIONS);
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    return badRequest(ctx, `dimensions must be an integer between 1 and ${MAX_DIMENSIONS}.`, 'dimensions');
  }
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') return badRequest(ctx, "encoding_format must be 'float' or 'base64'.", 'encoding_format');
  const data = texts.map((text, index) => {
    const vector = body.model === BAG_OF_WORDS_MODEL ? bagOfWordsOf(text, dimensions) : embeddingOf(text, dimensions);
    const embedding = format === 'base64' ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector);
    return { object: 'embedding', index, embedding };
  });
  const promptTokens = texts.reduce((sum, t) => sum + Math.max(1, words(t).length), 0);
  return sendJson(ctx, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } });
}
