// "Did you mean …" for misspelt keys and enum values: the closest candidate by edit distance,
// offered only when it is close enough to be a plausible typo.

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j];
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      prev[j] = Math.min(above + 1, prev[j - 1] + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return prev[b.length];
}

export function closest(word: string, candidates: Iterable<string>): string | null {
  const lower = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the length (at least 1, at most 3) separates typos from different words.
  const allowed = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  return best !== null && bestDistance <= allowed ? best : null;
}

export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const match = closest(word, candidates);
  return match === null ? undefined : `did you mean "${match}"?`;
}
