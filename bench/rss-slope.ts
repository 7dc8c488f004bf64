// How fast a process's memory is still rising, from evenly or unevenly spaced samples: the
// least-squares slope, so one low or high sample (a collection just before it) moves it little.

export interface RssSample {
  seconds: number;
  rssMB: number;
}

/** The least-squares slope of RSS over `samples`, in MB per minute (0 for fewer than two). */
export function rssSlopePerMinute(samples: readonly RssSample[]): number {
  if (samples.length < 2) return 0;
  const meanT = samples.reduce((sum, s) => sum + s.seconds, 0) / samples.length;
  const meanR = samples.reduce((sum, s) => sum + s.rssMB, 0) / samples.length;
  let covariance = 0;
  let variance = 0;
  for (const s of samples) {
    covariance += (s.seconds - meanT) * (s.rssMB - meanR);
    variance += (s.seconds - meanT) ** 2;
  }
  return variance === 0 ? 0 : (covariance / variance) * 60;
}
