// Usage counted from the request as sent, for answers billed per unit that report no tokens: a
// DALL·E image (per image, by its size and quality), speech answered as audio (tts-1, per character
// of its input), and a transcription's minutes (read from its upload's headers: a transcript asked
// for as text, a client that left before the answer). The answering target's override_params count
// as sent.
import type { TokenUsage } from '../../core/request-record.ts';
import { audioSeconds } from '../../core/audio-duration/index.ts';
import { boundaryOf, formPartData } from '../../core/multipart.ts';
import type { Exchange } from '../exchange.ts';
import { sentParam } from '../request-model.ts';
import { countCharacters } from '../../core/code-points.ts';

const IMAGE_OPERATIONS = new Set(['createImage', 'createImageEdit', 'createImageVariation']);
const TRANSCRIPTION_OPERATIONS = new Set(['createTranscription', 'createTranslation']);
/** The most of a client's size or quality a record keeps: real ones are a few characters. */
const MAX_UNIT_NAME_LENGTH = 64;

/** The per-unit usage of the request (images, characters to speak, seconds heard); null for an operation billed otherwise or an upload whose length is unknown. */
export function countedUsage(x: Exchange): TokenUsage | null {
  const operation = x.operationId;
  if (operation === 'createSpeech') {
    const input = sentParam(x, 'input');
    return { ...NO_TOKENS, inputCharacters: typeof input === 'string' ? countCharacters(input) : 0 };
  }
  if (operation !== null && TRANSCRIPTION_OPERATIONS.has(operation)) return heardUsage(x);
  if (operation === null || !IMAGE_OPERATIONS.has(operation)) return null;
  return { ...NO_TOKENS, images: imageCount(sentParam(x, 'n')), imageSize: unitName(sentParam(x, 'size')), imageQuality: unitName(sentParam(x, 'quality')) };
}

const NO_TOKENS = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, estimated: false } as const;

/**
 * The seconds of the uploaded recording (rounded up, as the service bills them), estimated: the
 * service did not say. Null when the upload is not a form, has no file, or its format does not say.
 */
function heardUsage(x: Exchange): TokenUsage | null {
  const boundary = x.rawBody === null ? null : boundaryOf(x.options.passedHeaders['content-type']);
  const file = boundary === null ? null : formPartData(x.rawBody!, boundary, 'file', true);
  const seconds = file === null ? null : audioSeconds(file);
  return seconds === null ? null : { ...NO_TOKENS, audioSeconds: Math.ceil(seconds), estimated: true };
}

/** The request's `n` (a number, or a form field's text); 1, the API's default, when it has none or an odd one. */
function imageCount(n: unknown): number {
  const count = typeof n === 'number' ? n : typeof n === 'string' && n.trim() !== '' ? Number(n) : 1;
  return Number.isSafeInteger(count) && count >= 1 ? count : 1;
}

/** A size or quality the request names; null when it names none (the model's default). */
function unitName(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  return value.length > MAX_UNIT_NAME_LENGTH ? value.slice(0, MAX_UNIT_NAME_LENGTH) : value;
}
