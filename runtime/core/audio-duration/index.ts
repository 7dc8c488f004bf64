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
import { MAX_PAGE_BYTES, oggSeconds } from './ogg.ts';
import { webmSeconds } from './webm.ts';
import { startsWith } from './bytes.ts';
import { adtsSeconds } from './adts.ts';
export { AdtsCounter } from './adts.ts';

/** Longer than any upload the API takes (25 MB) can hold: a header claiming more is not believed. */
const MAX_SECONDS = 7 * 24 * 3600;

/** Raw 16-bit mono samples at 24 kHz: the speech API's `pcm` answers, which have no header. */
const PCM_BYTES_PER_SECOND = 24_000 * 2;

/**
 * What is kept of a recording too long to keep whole: its first bytes (at least HEAD_BYTES), its
 * last (at least TAIL_BYTES) and its length. A whole file is all three.
 */
export interface AudioEdges {
  head: Buffer;
  tail: Buffer;
  length: number;
}

/** A whole file as its edges. */
export function edgesOf(file: Buffer): AudioEdges {
  return { head: file, tail: file, length: file.length };
}

/** What the readers need of a file's start: its tags and first frames, or its headers. */
export const HEAD_BYTES = 64 * 1024;
/** What they need of its end: an Ogg stream's last page (a page is at most MAX_PAGE_BYTES), an ID3v1 tag. */
export const TAIL_BYTES = 2 * MAX_PAGE_BYTES;

/** Seconds of audio in `file`, or null when its format is not one of these or its headers do not say. */
export function audioSeconds(file: Buffer): number | null {
  if (file.length >= 12 && file.readUInt32BE(0) === 0x1a45dfa3) return bounded(() => webmSeconds(file));
  if (file.length >= 12 && startsWith(file, 4, 'ftyp')) return bounded(() => mp4Seconds(file));
  return edgeSeconds(edgesOf(file));
}

/**
 * Seconds of a speech answer in the `format` it was asked for (the speech API's response_format:
 * mp3, opus, flac or wav; aac is counted as it passes, AdtsCounter; pcm is its length), from its
 * edges, or null when they do not say.
 */
export function spokenSeconds(edges: AudioEdges, format: string): number | null {
  if (format === 'pcm') return pcmSeconds(edges.length);
  if (format === 'aac') return edges.head.length === edges.length ? bounded(() => adtsSeconds(edges.head)) : null;
  return edgeSeconds(edges);
}

/** The formats whose length their edges say: WAV, FLAC, Ogg and MP3 (the rest is taken as MP3, which needs two frames in a row). */
function edgeSeconds(edges: AudioEdges): number | null {
  const { head, tail, length } = edges;
  return bounded(() => {
    if (head.length < 12) return null;
    if (startsWith(head, 0, 'RIFF') && startsWith(head, 8, 'WAVE')) return wavSeconds(head, length);
    if (startsWith(head, 0, 'fLaC')) return flacSeconds(head);
    if (startsWith(head, 0, 'OggS')) return oggSeconds(head, tail);
    return mp3Seconds(head, tail, length);
  });
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
