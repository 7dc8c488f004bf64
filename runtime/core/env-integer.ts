// Whole-number server settings read from the environment, checked once at start.

/** The setting `name` as a safe integer of at least `min`; `fallback` when unset or empty. */
export function envInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer of at least ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` and at most ${max}`}, not ${JSON.stringify(raw)}`);
  }
  return value;
}
