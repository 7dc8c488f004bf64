// The [min, max] bound the counting checks (words, sentences, characters) share, and the explanation
// they give: "1 word; 2 to 50 words allowed".

export interface Bounds {
  holds(count: number): boolean;
  /** What was counted and what the bound allows. */
  explain(count: number): string;
}

/** `unit`: the singular noun (its plural adds an s). */
export function withinBounds(min: unknown, max: unknown, unit: string): Bounds {
  const low = typeof min === 'number' ? min : 0;
  const high = typeof max === 'number' ? max : Infinity;
  const plural = `${unit}s`;
  // Made once per check, not per request.
  const allowed = high === Infinity ? `at least ${low} ${low === 1 ? unit : plural} allowed` : `${low} to ${high} ${plural} allowed`;
  return {
    holds: (count) => count >= low && count <= high,
    explain: (count) => `${count} ${count === 1 ? unit : plural}; ${allowed}`,
  };
}
