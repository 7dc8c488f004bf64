// Embeddings → the text-embedding models' `:predict`: one instance per input string, and the
// predictions back as the vendor's embedding list. The older models (`text-embedding-005`, …) bill
// by the character, which the answer counts (`metadata.billableCharacterCount`: code points, white
// space excluded); the usage names those characters beside the tokens, beyond the vendor's shape,
// as `input_characters`, so the log can price them (not under strict vendor compliance).
import { GatewayError } from '../../core/errors.ts';
import { refuseUnreadParams } from '../shared/translatable.ts';

/** The embeddings parameters this translation reads (`encoding_format` shapes the answer). */
const READS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format']);

export interface PredictResponse {
  predictions?: { embeddings?: { values?: number[]; statistics?: { token_count?: number } } }[];
  metadata?: { billableCharacterCount?: unknown };
}

export function toPredictRequest(body: Record<string, unknown>, provider: string): Record<string, unknown> {
  refuseUnreadParams(body, READS, provider);
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.every((i) => typeof i === 'string') ? (input as string[]) : null;
  if (texts === null) throw new GatewayError('unsupported_parameter', `The provider "${provider}" embeds text only: input must be a string or an array of strings.`, 'input');
  const request: Record<string, unknown> = { instances: texts.map((content) => ({ content })) };
  if (typeof body.dimensions === 'number') request.parameters = { outputDimensionality: body.dimensions };
  return request;
}

export function fromPredictResponse(response: PredictResponse, model: string, base64: boolean, strict: boolean): Record<string, unknown> {
  let tokens = 0;
  const data = (response.predictions ?? []).map((prediction, index) => {
    const values = prediction.embeddings?.values ?? [];
    tokens += prediction.embeddings?.statistics?.token_count ?? 0;
    return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(values).buffer).toString('base64') : values };
  });
  const usage: Record<string, number> = { prompt_tokens: tokens, total_tokens: tokens };
  const characters = response.metadata?.billableCharacterCount;
  if (!strict && Number.isSafeInteger(characters) && (characters as number) >= 0) usage.input_characters = characters as number;
  return { object: 'list', data, model, usage };
}
