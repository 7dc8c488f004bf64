// The programmatic face of the config compiler, shared by `gateway compile` and by the runtime for
// inline configs: the same check → plan (→ emit) pipeline for both.
import { checkConfigErrors } from './check.ts';
import type { ConfigError } from './errors.ts';
import { locate, parseWithPositions } from './json-locate.ts';
import { planConfig } from './plan.ts';
import type { RoutePlan } from './route-plan.ts';

export type CheckResult = { ok: true; plan: RoutePlan } | { ok: false; errors: ConfigError[] };

/** Checks a parsed config value and plans it. */
export function checkConfig(value: unknown, configId = 'inline'): CheckResult {
  const errors = checkConfigErrors(value);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, plan: planConfig(value as Record<string, unknown>, configId) };
}

/** Checks config source text (a saved config file), locating every error at its line and column. */
export function checkConfigSource(source: string, configId: string): CheckResult {
  const parsed = parseWithPositions(source);
  if (!parsed.ok) {
    return { ok: false, errors: [{ code: 'CFG_INVALID_JSON', configId, pointer: '', message: `Not valid JSON: ${parsed.message}.`, ...parsed.position }] };
  }
  const duplicates: ConfigError[] = parsed.map.duplicates.map(({ pointer, position }) => ({
    code: 'CFG_DUPLICATE_KEY',
    pointer,
    message: `The key "${pointer.slice(pointer.lastIndexOf('/') + 1)}" appears twice in the same object; only the last one would count.`,
    hint: 'remove one of the two',
    ...position,
  }));
  const result = checkConfig(parsed.value, configId);
  if (result.ok && duplicates.length === 0) return result;
  const errors = [...duplicates, ...(result.ok ? [] : result.errors)].map((error) => ({
    ...error,
    configId,
    ...(error.line === undefined ? locate(parsed.map, error.pointer, error.code === 'CFG_UNKNOWN_KEY' || error.code === 'CFG_DUPLICATE_KEY') : {}),
  }));
  return { ok: false, errors };
}

export type { ConfigError, ConfigErrorCode } from './errors.ts';
export { CONFIG_ERRORS } from './errors.ts';
export type { RoutePlan } from './route-plan.ts';
