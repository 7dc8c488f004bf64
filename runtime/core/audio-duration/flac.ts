// FLAC: the STREAMINFO block, first after the `fLaC` marker, holds the sample rate (20 bits) and the
// total samples (36 bits; 0 when the encoder did not know them).
export function flacSeconds(file: Buffer): number | null {
  // Marker (4), block header (4), then STREAMINFO: sizes (10 bytes) before the rate.
  const info = 8;
  if ((file[4]! & 0x7f) !== 0 || info + 18 > file.length) return null;
  const rate = (file[info + 10]! << 12) | (file[info + 11]! << 4) | (file[info + 12]! >> 4);
  const samples = (file[info + 13]! & 0x0f) * 2 ** 32 + file.readUInt32BE(info + 14);
  return rate > 0 && samples > 0 ? samples / rate : null;
}
