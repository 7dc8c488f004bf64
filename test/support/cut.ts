// Consecutive pieces of a text or of bytes, cut at generated points (taken modulo the length, so any
// natural number is a point): the chunking that stream readers must not care about.

export function cutAt<T extends string | Buffer>(value: T, points: readonly number[]): T[] {
  const at = [...new Set(points.map((p) => p % (value.length + 1)))].sort((a, b) => a - b);
  const pieces: T[] = [];
  let from = 0;
  for (const point of [...at, value.length]) {
    pieces.push((typeof value === 'string' ? value.slice(from, point) : value.subarray(from, point)) as T);
    from = point;
  }
  return pieces;
}
