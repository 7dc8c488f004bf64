// How long an uploaded recording is, read from its container's headers: what a transcription is
// billed by (per minute) when its answer says nothing (a transcript asked for as text, a client that
// left before the answer). The formats the transcription API takes: WAV, FLAC, MP3 (mpeg, mpga),
// MP4 and M4A, Ogg (Vorbis, Opus) and WebM. Never throws: a file it cannot read has no duration.
import { wavSeconds } from './wav.ts';
import { flacSeconds } from './flac.ts';
import { mp3Seconds } from './mp3.ts';
import { mp4Seconds } from './mp4.ts';
import { oggSeconds } from './ogg.ts';
import { webmSeconds } from './webm.ts';
import { startsWith } from './bytes.ts';

/** Longer than any upload the API takes (25 MB) can hold: a header claiming more is not believed. */
const MAX_SECONDS = 7 * 24 * 3600;

/** Seconds of audio in `file`, or null when its format is not one of these or its headers do not say. */
export function audioSeconds(file: Buffer): number | null {
  let seconds: number | null;
  try {
    seconds = readSeconds(file);
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
