// How long an uploaded recording is, read from its container's headers: what a transcription is
// billed by (per minute) when its answer says nothing (a transcript asked for as text, a client that
// left before the answer), and how long a speech answer is (what a speech model is priced by when
// it reports no tokens). The formats the transcription API takes: WAV, FLAC, MP3 (mpeg, mpga), MP4
// and M4A, Ogg (Vorbis, Opus) and WebM; and the speech API's AAC and PCM. Never throws: a file it
// cannot read has no duration.
import { wavSeconds } from './wav.ts';
import { flacSeconds } from './flac.ts';
import { mp3Seconds } from './mp3.ts';
import { mp4Seconds } from './mp4.ts';
import { oggSeconds } from './ogg.ts';
import { webmSeconds } from './webm.ts';
import { startsWith } from './bytes.ts';
import { adtsSeconds } from './adts.ts';

/** Longer than any upload the API takes (25 MB) can hold: a header claiming more is not believed. */
const MAX_SECONDS = 7 * 24 * 3600;

/** Raw 16-bit mono samples at 24 kHz: the speech API's `pcm` answers, which have no header. */
const PCM_BYTES_PER_SECOND = 24_000 * 2;

/** Seconds of audio in `file`, or null when its format is not one of these or its headers do not say. */
export function audioSeconds(file: Buffer): number | null {
  return bounded(() => readSeconds(file));
}

/**
 * Seconds of a speech answer in the `format` it was asked for (the speech API's response_format:
 * mp3, opus, aac, flac, wav or pcm), or null when its bytes do not say.
 */
export function spokenSeconds(file: Buffer, format: string): number | null {
  if (format === 'pcm') return pcmSeconds(file.length);
  if (format === 'aac') return bounded(() => adtsSeconds(file));
  return audioSeconds(file);
}

/** Seconds of `bytes` of the speech API's headerless PCM. */
export function pcmSeconds(bytes: number): number {
  return bytes / PCM_BYTES_PER_SECOND;
}

function bounded(read: () => number | null): number | null {
  let seconds: number | null;
  try {
    seconds = read();
  } catch {
    // A malformed file may end mid-field: a read past its end is a file without a duration.
    return null;
  }
  return seconds !== null && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_SECONDS ? seconds : null;
}

function readSeconds(file: Buffer): number | null {
  if (file.length < 12) return null;
  if (startsWith(file, 0, 'RIFF') && startsWith(file, 8, 'WAVE')) return wavSeconds(file);
  if (startsWith(file, 0, 'fLaC')) return flacSeconds(file);
  if (startsWith(file, 0, 'OggS')) return oggSeconds(file);
  if (file.readUInt32BE(0) === 0x1a45dfa3) return webmSeconds(file);
  if (startsWith(file, 4, 'ftyp')) return mp4Seconds(file);
  return mp3Seconds(file);
}
