// The length of a recording, read from its container's headers (runtime/core/audio-duration): exact
// where the headers say it, an estimate where they do not (a constant-bitrate MP3), and never a
// throw or an invented length for bytes that are not one of the formats.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { audioSeconds, edgesOf, spokenSeconds } from '../../runtime/core/audio-duration/index.ts';
import { adtsFile, flacFile, MP3_FRAME_BYTES, MP3_FRAME_SECONDS, mp3File, mp4File, opusFile, vorbisFile, wavFile, webmFile } from '../support/audio-files.ts';

describe('audioSeconds', () => {
  it('reads a WAV, including one streamed with an unknown data size', () => {
    expect(audioSeconds(wavFile(2.5))).toBeCloseTo(2.5, 9);
    expect(audioSeconds(wavFile(1, 8_000))).toBeCloseTo(1, 9);
    expect(audioSeconds(wavFile(3, 16_000, 0xffffffff))).toBeCloseTo(3, 9);
    expect(audioSeconds(wavFile(3, 16_000, 0))).toBeCloseTo(3, 9);
  });

  it('reads a FLAC stream\'s STREAMINFO, and not one whose total is unknown', () => {
    expect(audioSeconds(flacFile(16_000 * 7, 16_000))).toBeCloseTo(7, 9);
    expect(audioSeconds(flacFile(2 ** 33 + 44_100, 44_100))).toBeCloseTo((2 ** 33 + 44_100) / 44_100, 6);
    expect(audioSeconds(flacFile(0, 44_100))).toBeNull();
  });

  it('reads an MP3 by its Xing frame count, else by its bitrate, past an ID3v2 tag', () => {
    expect(audioSeconds(mp3File(200, { xing: true }))).toBeCloseTo(200 * MP3_FRAME_SECONDS, 9);
    expect(audioSeconds(mp3File(200, { xing: true, id3: true }))).toBeCloseTo(200 * MP3_FRAME_SECONDS, 9);
    // Constant bitrate: its bytes at 128 kbit/s, within a frame of the truth.
    const cbr = audioSeconds(mp3File(300, { id3: true }))!;
    expect(cbr).toBeCloseTo((300 * MP3_FRAME_BYTES * 8) / 128_000, 9);
    expect(Math.abs(cbr - 300 * MP3_FRAME_SECONDS)).toBeLessThan(MP3_FRAME_SECONDS);
  });

  it('reads an M4A\'s movie header, version 0 and 1', () => {
    expect(audioSeconds(mp4File(4_500, 1_000))).toBeCloseTo(4.5, 9);
    expect(audioSeconds(mp4File(44_100 * 90, 44_100, 1))).toBeCloseTo(90, 9);
  });

  it('reads an Ogg stream\'s last granule: Opus less its pre-skip, Vorbis at its rate', () => {
    expect(audioSeconds(opusFile(12.5))).toBeCloseTo(12.5, 9);
    expect(audioSeconds(vorbisFile(44_100 * 5, 44_100))).toBeCloseTo(5, 9);
  });

  it('reads a WebM\'s Duration, or a browser recording\'s last cluster and block', () => {
    expect(audioSeconds(webmFile({ durationMs: 2_500 }))).toBeCloseTo(2.5, 9);
    expect(audioSeconds(webmFile({ lastBlockMs: 3_480 }))).toBeCloseTo(3.48, 9);
    expect(audioSeconds(webmFile({ lastBlockMs: 100 }))).toBeCloseTo(0.1, 9);
  });

  it('reads a speech answer in the format it was asked for: AAC by its ADTS frames, PCM by its bytes', () => {
    expect(spokenSeconds(edgesOf(adtsFile(250)), 'aac')).toBeCloseTo((250 * 1024) / 24_000, 9);
    expect(spokenSeconds(edgesOf(Buffer.alloc(48_000 * 3)), 'pcm')).toBeCloseTo(3, 9);
    expect(spokenSeconds(edgesOf(mp3File(100, { xing: true })), 'mp3')).toBeCloseTo(100 * MP3_FRAME_SECONDS, 9);
    expect(spokenSeconds(edgesOf(wavFile(2)), 'wav')).toBeCloseTo(2, 9);
    expect(spokenSeconds(edgesOf(opusFile(4)), 'opus')).toBeCloseTo(4, 9);
    expect(spokenSeconds(edgesOf(Buffer.alloc(500, 7)), 'aac')).toBeNull();
  });

  it('has no length for bytes of no format it reads', () => {
    for (const bytes of [Buffer.alloc(0), Buffer.alloc(48_000, 3), Buffer.from('not audio at all, just text'), Buffer.alloc(1000, 0xff)]) expect(audioSeconds(bytes)).toBeNull();
  });

  it('never throws and never answers past its bounds, whatever the bytes: random, or a real file truncated or with bytes changed', () => {
    const files = [adtsFile(30), wavFile(1.5), flacFile(16_000, 16_000), mp3File(40, { xing: true, id3: true }), mp3File(40), mp4File(2_000, 1_000, 1), opusFile(1), vorbisFile(8_000, 8_000), webmFile({ durationMs: 900 }), webmFile({ lastBlockMs: 1_500 })];
    const mangled = fc.record({
      file: fc.constantFrom(...files),
      cut: fc.nat(),
      changes: fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { maxLength: 8 }),
    }).map(({ file, cut, changes }) => {
      const copy = Buffer.from(file.subarray(0, file.length - (cut % file.length)));
      for (const change of changes) if (copy.length > 0) copy[change.at % copy.length] = change.byte;
      return copy;
    });
    const anyBytes = fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes));
    fc.assert(
      fc.property(fc.oneof(mangled, anyBytes), fc.constantFrom('mp3', 'aac', 'wav', 'opus', 'flac'), (bytes, format) => {
        for (const seconds of [audioSeconds(bytes), spokenSeconds(edgesOf(bytes), format)]) {
          expect(seconds === null || (Number.isFinite(seconds) && seconds >= 0 && seconds <= 7 * 24 * 3600)).toBe(true);
        }
      }),
      { numRuns: 3_000, interruptAfterTimeLimit: 10_000, verbose: 1 },
    );
  });
});
