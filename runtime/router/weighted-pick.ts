// Choosing among sibling targets (ARCHITECTURE §5 "Loadbalance", "Circuit breaker").
//
//   pickWeighted(weights, eligible, random): number
//     Index i with probability weights[i] / Σ weights over the eligible indices of positive weight;
//     -1 when there is none. A weight of 0 (or negative, NaN, ±Infinity) is never picked.
//     `random` returns values in [0, 1) like Math.random.
//   fallbackOrder(eligible): number[]
//     The order fallback tries targets in: eligible indices ascending, or every index when none is
//     eligible ("when every candidate is open, they are tried anyway").
//
// `eligible[i]` is normally `!breakers.isOpen(key_i, plan_i)`. For loadbalance, when pickWeighted
// returns -1 because every candidate is open, call it again with every index eligible.

function usableWeight(weight: number): boolean {
  return weight > 0 && Number.isFinite(weight);
}

export function pickWeighted(weights: readonly number[], eligible: readonly boolean[], random: () => number): number {
  let total = 0;
  let largest = 0;
  let lastUsable = -1;
  for (let i = 0; i < weights.length; i++) {
    if (eligible[i] && usableWeight(weights[i])) {
      total += weights[i];
      if (weights[i] > largest) largest = weights[i];
      lastUsable = i;
    }
  }
  if (lastUsable === -1) return -1;
  // Weights near Number.MAX_VALUE sum past it (every pick would fall to the last): take them relative to the largest.
  const scale = Number.isFinite(total) ? 1 : 1 / largest;
  if (scale !== 1) total = weights.reduce((sum, w, i) => (eligible[i] && usableWeight(w) ? sum + w * scale : sum), 0);
  const r = random();
  let remaining = (r >= 0 && r < 1 ? r : 0) * total;
  for (let i = 0; i < lastUsable; i++) {
    if (eligible[i] && usableWeight(weights[i])) {
      const weight = weights[i] * scale;
      if (remaining < weight) return i;
      remaining -= weight;
    }
  }
  // Float rounding can leave a sliver past the last boundary; it belongs to the last usable index.
  return lastUsable;
}

export function fallbackOrder(eligible: readonly boolean[]): number[] {
  const order: number[] = [];
  for (let i = 0; i < eligible.length; i++) if (eligible[i]) order.push(i);
  if (order.length > 0) return order;
  return eligible.map((_, i) => i);
}
