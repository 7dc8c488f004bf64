// POST /v1/audio/speech (JSON in, audio bytes out) and /v1/audio/transcriptions (multipart in).
import { createHash } from 'node:crypto';
import type { MockContext } from './context.ts';
import { jsonObject } from './context.ts';
import { badRequest, sendBody, sendJson, startResponse, writeChunk } from './respond.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';

const AUDIO_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
const AUDIO_CHUNK = 4096;
const MAX_SPEECH_INPUT = 4096;

/**
 * Deterministic bytes for a text: every byte value occurs (it is not valid UTF-8), so a proxy
 * that decodes and re-encodes it is caught by a byte comparison.
 */
export function speechBytes(input: string, format: string): Buffer {
  const length = 8192 + input.length * 64;
  const out = Buffer.alloc(length);
  let block = createHash('sha256').update(`${format}:${input}`).digest();
  for (let i = 0; i < length; i += 32) {
    block.copy(out, i);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

export async function speech(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request. The vendor API expects a JSON payload.');
  if (typeof body.model !== 'string' || body.model === '') return badRequest(ctx, 'you must provide a model parameter');
  if (typeof body.input !== 'string' || body.input === '') return badRequest(ctx, "Missing required parameter: 'input'.", 'input');
  if (body.input.length > MAX_SPEECH_INPUT) return badRequest(ctx, `input must be at most ${MAX_SPEECH_INPUT} characters.`, 'input');
  if (typeof body.voice !== 'string' || body.voice === '') return badRequest(ctx, "Missing required parameter: 'voice'.", 'voice');
  const format = body.response_format ?? 'mp3';
  const contentType = typeof format === 'string' ? AUDIO_TYPES[format] : undefined;
  if (contentType === undefined) return badRequest(ctx, `Invalid response_format: ${JSON.stringify(format)}.`, 'response_format');
  const audio = speechBytes(body.input, format as string);
  if (ctx.step?.breakAfter !== undefined || ctx.step?.stallAfter !== undefined) return sendBody(ctx, 200, contentType, audio);
  // The vendor streams generated audio with chunked encoding, without a content-length.
  startResponse(ctx, 200, { 'content-type': contentType });
  for (let i = 0; i < audio.length; i += AUDIO_CHUNK) {
    if (!(await writeChunk(ctx, audio.subarray(i, i + AUDIO_CHUNK)))) return;
  }
  ctx.res.end();
}

export async function transcription(ctx: MockContext): Promise<void> {
  const boundary = boundaryOf(ctx.req.headers['content-type']);
  if (boundary === null) return badRequest(ctx, 'Expected a multipart/form-data request body.', 'file');
  const form = parseMultipart(ctx.record.bodyBytes, boundary);
  if (form === null) return badRequest(ctx, 'The multipart body could not be parsed.', 'file');
  const file = form.files.file;
  if (file === undefined) return badRequest(ctx, "Missing required parameter: 'file'.", 'file');
  if (form.fields.model === undefined || form.fields.model === '') return badRequest(ctx, 'you must provide a model parameter', 'model');
  const seconds = Math.max(1, Math.round(file.data.length / 16000));
  const text = `[${ctx.label}] transcript of ${file.filename} (${file.data.length} bytes)`;
  const format = form.fields.response_format ?? 'json';
  switch (format) {
    case 'json':
      return sendJson(ctx, 200, { text, usage: { type: 'duration', seconds } });
    case 'text':
      return sendBody(ctx, 200, 'text/plain; charset=utf-8', Buffer.from(`${text}\n`));
    case 'verbose_json':
      return sendJson(ctx, 200, {
        task: 'transcribe',
        language: form.fields.language ?? 'english',
        duration: seconds,
        text,
        segments: [],
        usage: { type: 'duration', seconds },
      });
    default:
      return badRequest(ctx, `Invalid response_format: ${JSON.stringify(format)}.`, 'response_format');
  }
}
