// AAC in ADTS frames (what a speech answer asked for as `aac` is): each frame's header gives its
// length and sample rate, and holds 1,024 samples; the frames are counted.
const SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const SAMPLES_PER_FRAME = 1024;

export function adtsSeconds(file: Buffer): number | null {
  let frames = 0;
  let rate = 0;
  let at = 0;
  while (at + 7 <= file.length) {
    if (file[at] !== 0xff || (file[at + 1]! & 0xf6) !== 0xf0) return null;
    const rateIndex = (file[at + 2]! >> 2) & 0x0f;
    const length = ((file[at + 3]! & 0x03) << 11) | (file[at + 4]! << 3) | (file[at + 5]! >> 5);
    if (rateIndex >= SAMPLE_RATES.length || length < 7) return null;
    rate = SAMPLE_RATES[rateIndex]!;
    // A header may hold several raw blocks of 1,024 samples each.
    frames += (file[at + 6]! & 0x03) + 1;
    at += length;
  }
  return frames > 0 ? (frames * SAMPLES_PER_FRAME) / rate : null;
}
