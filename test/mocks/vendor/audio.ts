// POST /v1/audio/speech (JSON in, audio bytes out) and /v1/audio/transcriptions and translations
// (multipart in; JSON, plain text or a transcript event stream out).
import { createHash } from 'node:crypto';
import type { MockContext } from './context.ts';
import { jsonObject } from './context.ts';
import { badRequest, sendBody, sendJson, startResponse, writeChunk } from './respond.ts';
import { sendEventStream } from './sse.ts';
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
/** Transcription models the service bills by the second of audio (its `usage` says `duration`); the others report tokens. */
const BILLED_BY_SECONDS = /^whisper/;
const MAX_SPEECH_INPUT = 4096;
/** The mock's count of audio tokens in generated speech. */
const SPEECH_BYTES_PER_TOKEN = 128;

/**
 * Deterministic bytes for a text: every byte value occurs (it is not valid UTF-8), so a proxy
 * that decodes and re-encodes it is caught by a byte comparison. As `wav` and `mp3` they are in
 * that container, so their length can be read from their headers as from the service's (a WAV at
 * 24 kHz, 16-bit mono; MP3 frames of MPEG-2 layer III at 24 kHz and 64 kbit/s, 24 ms each); `pcm`
 * is raw 24 kHz 16-bit samples, as the service's.
 */
export function speechBytes(input: string, format: string): Buffer {
  const length = 8192 + input.length * 64;
  const out = Buffer.alloc(length);
  let block = createHash('sha256').update(`${format}:${input}`).digest();
  for (let i = 0; i < length; i += 32) {
    block.copy(out, i);
    block = createHash('sha256').update(block).digest();
  }
  if (format === 'wav') {
    out.write('RIFF', 0, 'latin1');
    out.writeUInt32LE(length - 8, 4);
    out.write('WAVEfmt ', 8, 'latin1');
    out.writeUInt32LE(16, 16);
    out.writeUInt16LE(1, 20);
    out.writeUInt16LE(1, 22);
    out.writeUInt32LE(24_000, 24);
    out.writeUInt32LE(48_000, 28);
    out.writeUInt16LE(2, 32);
    out.writeUInt16LE(16, 34);
    out.write('data', 36, 'latin1');
    out.writeUInt32LE(length - 44, 40);
  } else if (format === 'mp3') {
    const frames = Math.floor(length / MP3_FRAME_BYTES);
    for (let i = 0; i < frames; i++) out.writeUInt32BE(MP3_FRAME_HEADER, i * MP3_FRAME_BYTES);
    return out.subarray(0, frames * MP3_FRAME_BYTES);
  }
  return out;
}

/** MPEG-2 layer III, 64 kbit/s, 24 kHz, mono, no padding: 192 bytes and 576 samples (24 ms) a frame. */
const MP3_FRAME_HEADER = 0xfff384c0;
const MP3_FRAME_BYTES = 192;

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
  if (body.stream_format === 'sse') {
    if (/^tts-1/.test(body.model)) return badRequest(ctx, `stream_format 'sse' is not supported for ${body.model}.`, 'stream_format');
    // The audio in base64 events, then its usage (text tokens in, audio tokens out), as the service streams it.
    const frames: object[] = [];
    for (let i = 0; i < audio.length; i += AUDIO_CHUNK) frames.push({ type: 'speech.audio.delta', audio: audio.subarray(i, i + AUDIO_CHUNK).toString('base64') });
    const input = Math.ceil(body.input.length / 4);
    const output = Math.ceil(audio.length / SPEECH_BYTES_PER_TOKEN);
    frames.push({ type: 'speech.audio.done', usage: { input_tokens: input, output_tokens: output, total_tokens: input + output } });
    return sendEventStream(ctx, frames);
  }
  if (ctx.step?.breakAfter !== undefined || ctx.step?.stallAfter !== undefined) return sendBody(ctx, 200, contentType, audio);
  // The vendor streams generated audio with chunked encoding, without a content-length.
  startResponse(ctx, 200, { 'content-type': contentType });
  for (let i = 0; i < audio.length; i += AUDIO_CHUNK) {
    if (!(await writeChunk(ctx, audio.subarray(i, i + AUDIO_CHUNK)))) return;
  }
  ctx.res.end();
}

/** POST /v1/audio/transcriptions and /v1/audio/translations: the "heard" text names the file it came from. */
export function transcription(ctx: MockContext): Promise<void> {
  return transcribe(ctx, 'transcribe');
}

export function translation(ctx: MockContext): Promise<void> {
  return transcribe(ctx, 'translate');
}

async function transcribe(ctx: MockContext, task: 'transcribe' | 'translate'): Promise<void> {
  const boundary = boundaryOf(ctx.req.headers['content-type']);
  if (boundary === null) return badRequest(ctx, 'Expected a multipart/form-data request body.', 'file');
  const form = parseMultipart(ctx.record.bodyBytes, boundary);
  if (form === null) return badRequest(ctx, 'The multipart body could not be parsed.', 'file');
  const file = form.files.file;
  if (file === undefined) return badRequest(ctx, "Missing required parameter: 'file'.", 'file');
  if (form.fields.model === undefined || form.fields.model === '') return badRequest(ctx, 'you must provide a model parameter', 'model');
  const seconds = Math.max(1, Math.round(file.data.length / 16000));
  const text = `[${ctx.label}] ${task === 'translate' ? 'translation' : 'transcript'} of ${file.filename} (${file.data.length} bytes)`;
  const pieces = text.split(/(?= )/);
  // Token-level detail, as the service gives it on request: each piece's log probability.
  const logprobs = form.fields['include[]'] === 'logprobs' ? pieces.map((token, i) => ({ token, logprob: -0.01 * (i + 1), bytes: [...Buffer.from(token)] })) : undefined;
  const tokenUsage = { type: 'tokens', input_tokens: seconds * 10, input_token_details: { audio_tokens: seconds * 10, text_tokens: 0 }, output_tokens: pieces.length, total_tokens: seconds * 10 + pieces.length };
  if (form.fields.stream === 'true') {
    // The service's transcript stream: a delta event per piece, then the whole text with its usage (no [DONE]).
    const frames = [
      ...pieces.map((delta, i) => ({ type: 'transcript.text.delta', delta, ...(logprobs === undefined ? {} : { logprobs: [logprobs[i]] }) })),
      { type: 'transcript.text.done', text, ...(logprobs === undefined ? {} : { logprobs }), usage: tokenUsage },
    ];
    return sendEventStream(ctx, frames);
  }
  const format = form.fields.response_format ?? 'json';
  switch (format) {
    case 'json':
      // The service bills its token models (gpt-4o-transcribe) by tokens and whisper by the second, and says so.
      return sendJson(ctx, 200, { text, ...(logprobs === undefined ? {} : { logprobs }), usage: BILLED_BY_SECONDS.test(form.fields.model) ? { type: 'duration', seconds } : tokenUsage });
    case 'text':
      return sendBody(ctx, 200, 'text/plain; charset=utf-8', Buffer.from(`${text}\n`));
    case 'srt':
    case 'vtt': {
      // Subtitles, whisper's only: one cue for the whole clip.
      if (!BILLED_BY_SECONDS.test(form.fields.model)) return badRequest(ctx, `response_format '${format}' is not compatible with model '${form.fields.model}'.`, 'response_format');
      const end = new Date(seconds * 1000).toISOString().slice(11, 23);
      const cue = format === 'srt' ? `1\n00:00:00,000 --> ${end.replace('.', ',')}\n${text}\n\n` : `WEBVTT\n\n00:00:00.000 --> ${end}\n${text}\n\n`;
      return sendBody(ctx, 200, 'text/plain; charset=utf-8', Buffer.from(cue));
    }
    case 'verbose_json': {
      // One segment for the whole clip, with the token ids a decoder would read back into its text.
      const segment = { id: 0, seek: 0, start: 0, end: seconds, text, tokens: pieces.map((piece) => 50_000 + piece.length), temperature: 0, avg_logprob: -0.2, compression_ratio: 1.2, no_speech_prob: 0.01 };
      const timed = form.fields['timestamp_granularities[]'] === 'word';
      return sendJson(ctx, 200, {
        task,
        language: form.fields.language ?? 'english',
        duration: seconds,
        text,
        segments: [segment],
        ...(timed ? { words: pieces.map((piece, i) => ({ word: piece.trim(), start: (i * seconds) / pieces.length, end: ((i + 1) * seconds) / pieces.length })) } : {}),
        usage: { type: 'duration', seconds },
      });
    }
    default:
      return badRequest(ctx, `Invalid response_format: ${JSON.stringify(format)}.`, 'response_format');
  }
}
