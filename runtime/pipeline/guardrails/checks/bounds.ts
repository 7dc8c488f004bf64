// The [min, max] bound the counting checks (words, sentences, characters) share.

export interface Bounds {
  holds(count: number): boolean;
  describe(unit: string): string;
}

export function withinBounds(min: unknown, max: unknown): Bounds {
  const low = typeof min === 'number' ? min : 0;
  const high = typeof max === 'number' ? max : Infinity;
  return {
    holds: (count) => count >= low && count <= high,
    describe: (unit) => (high === Infinity ? `at least ${low} ${unit} allowed` : `${low} to ${high} ${unit} allowed`),
  };
}
