// The speech length tap keeps only an answer's edges (and counts AAC frames as they pass): whatever
// chunks the answer comes in, and however long it is, it reads the length the whole answer has.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edgesOf, spokenSeconds } from '../../runtime/core/audio-duration/index.ts';
import type { RequestRecord, TokenUsage } from '../../runtime/core/request-record.ts';
import { SpokenLengthTap } from '../../runtime/pipeline/log/spoken-length-tap.ts';
import { adtsFile, mp3File, opusFile, vorbisFile, wavFile } from '../support/audio-files.ts';

const COUNTED: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, inputCharacters: 12, estimated: false };

function tapped(file: Buffer, format: string, cuts: number[]): TokenUsage | null {
  const record = { usage: null } as unknown as RequestRecord;
  let done = 0;
  const tap = new SpokenLengthTap(record, COUNTED, format, () => done++);
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (file.length + 1)).sort((a, b) => a - b), file.length]) {
    if (cut <= at) continue;
    tap.write(file.subarray(at, cut));
    at = cut;
  }
  tap.end();
  expect(done).toBe(1);
  return record.usage;
}

describe('SpokenLengthTap', () => {
  // Short ones kept whole, long ones (past the head and tail it keeps) read from their edges.
  const answers: Array<[string, Buffer]> = [
    ['mp3', mp3File(40)], ['mp3', mp3File(4_000, { id3: true })], ['mp3', mp3File(4_000, { xing: true })],
    ['wav', wavFile(0.5)], ['wav', wavFile(40)],
    ['opus', opusFile(3)], ['opus', opusFile(90, 3_000)], ['opus', opusFile(95, 3_000, 254 * 255)], ['opus', vorbisFile(44_100 * 7, 44_100)],
    ['aac', adtsFile(20)], ['aac', adtsFile(6_000)],
    ['pcm', Buffer.alloc(480_000)],
  ];

  it('reads the length of the whole answer, in any chunks, from what it keeps', () => {
    fc.assert(
      fc.property(fc.constantFrom(...answers), fc.array(fc.nat(), { maxLength: 40 }), ([format, file], cuts) => {
        const whole = spokenSeconds(edgesOf(file), format);
        expect(whole).not.toBeNull();
        expect(tapped(file, format, cuts)).toEqual({ ...COUNTED, audioOutputSeconds: Math.round(whole! * 100) / 100, estimated: true });
      }),
      { numRuns: 300, interruptAfterTimeLimit: 10_000 },
    );
  });

  it('keeps the counted characters when the answer says no length', () => {
    expect(tapped(Buffer.alloc(300_000, 9), 'mp3', [70_000])).toEqual(COUNTED);
    expect(tapped(Buffer.alloc(3_000, 9), 'aac', [])).toEqual(COUNTED);
  });
});
