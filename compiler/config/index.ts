// The programmatic face of the config compiler, shared by `gateway compile` and by the runtime for
// inline configs: the same check → plan (→ emit) pipeline for both.
import { MAX_CONFIG_DEPTH, nestsDeeperThan } from './json-depth.ts';
import { callBudgetError } from './call-budget.ts';
import { tooManyTargets } from './target-count.ts';
import { checkConfigErrors } from './check.ts';
import { type ConfigError, isKeyError } from './errors.ts';
import { locate, parseWithPositions } from './json-locate.ts';
import { planConfig } from './plan.ts';
import type { RoutePlan } from './route-plan.ts';
import type { GuardrailLookup } from './guardrail-lookup.ts';
import { refusedReferences, resolveSecrets, type SecretReferences } from './secrets.ts';

export type CheckResult = { ok: true; plan: RoutePlan } | { ok: false; errors: ConfigError[] };

export interface CheckOptions {
  /** Where guardrails named by string resolve; none known when absent. */
  guardrails?: GuardrailLookup | null;
  /** `${NAME}` references: resolved from an environment (files loaded by serve), kept as written (`gateway compile`, the default), or refused (API and inline configs). */
  secrets?: SecretReferences;
}

/** Checks a parsed config value and plans it. */
export function checkConfig(value: unknown, configId = 'inline', options: CheckOptions = {}): CheckResult {
  // Before any walk over it (the schema validator, the semantic rules) could overflow the stack.
  if (nestsDeeperThan(value, MAX_CONFIG_DEPTH)) return { ok: false, errors: [configTooDeep()] };
  // Before the schema check, whose work grows with the square of the targets of an invalid config.
  const tooMany = tooManyTargets(value);
  if (tooMany !== null) return { ok: false, errors: [tooMany] };
  const secrets = options.secrets ?? 'keep';
  let config = value;
  if (secrets === 'refuse') {
    const refused = refusedReferences(value);
    if (refused.length > 0) return { ok: false, errors: refused };
  } else if (secrets !== 'keep') {
    const resolved = resolveSecrets(value, secrets.env);
    if (resolved.errors.length > 0) return { ok: false, errors: resolved.errors };
    config = resolved.value;
  }
  const guardrails = options.guardrails ?? null;
  const errors = checkConfigErrors(config, guardrails);
  if (errors.length > 0) return { ok: false, errors };
  const plan = planConfig(config as Record<string, unknown>, configId, guardrails);
  const overBudget = callBudgetError(plan.root);
  if (overBudget !== null) return { ok: false, errors: [overBudget] };
  return { ok: true, plan };
}

/**
 * CFG_DUPLICATE_KEY for every key that appears twice in one object of `source` (valid JSON text),
 * under `prefix` (e.g. `/config` when the config is a member of a request body). One rule
 * everywhere: config files, inline configs and configs saved through the API.
 */
export function findDuplicateKeys(source: string, prefix = ''): ConfigError[] {
  const parsed = parseWithPositions(source);
  if (!parsed.ok) return [];
  return duplicateKeyErrors(parsed.map.duplicates.filter(({ pointer }) => pointer === prefix || pointer.startsWith(`${prefix}/`)), prefix);
}

function duplicateKeyErrors(found: ReadonlyArray<{ pointer: string; position: { line: number; column: number } }>, prefix = ''): ConfigError[] {
  return found.map(({ pointer, position }) => ({
    code: 'CFG_DUPLICATE_KEY',
    pointer: pointer.slice(prefix.length),
    message: `The key "${pointer.slice(pointer.lastIndexOf('/') + 1)}" appears twice in the same object; only the last one would count.`,
    hint: 'remove one of the two',
    ...position,
  }));
}

/** CFG_TOO_DEEP for a config that nests more than MAX_CONFIG_DEPTH levels of arrays and objects. */
export function configTooDeep(): ConfigError {
  return { code: 'CFG_TOO_DEEP', pointer: '', message: `The config nests more than ${MAX_CONFIG_DEPTH} levels of arrays and objects.` };
}

/** Checks config source text (a saved config file), locating every error at its line and column. */
export function checkConfigSource(source: string, configId: string, options: CheckOptions = {}): CheckResult {
  const parsed = parseWithPositions(source);
  if (!parsed.ok) {
    return { ok: false, errors: [{ code: 'CFG_INVALID_JSON', configId, pointer: '', message: `Not valid JSON: ${parsed.message}.`, ...parsed.position }] };
  }
  const duplicates = duplicateKeyErrors(parsed.map.duplicates);
  const result = checkConfig(parsed.value, configId, options);
  if (result.ok && duplicates.length === 0) return result;
  const errors = [...duplicates, ...(result.ok ? [] : result.errors)].map((error) => ({
    ...error,
    configId,
    ...(error.line === undefined ? locate(parsed.map, error.pointer, isKeyError(error)) : {}),
  }));
  return { ok: false, errors };
}

export type { ConfigError, ConfigErrorCode } from './errors.ts';
export { CONFIG_ERRORS } from './errors.ts';
export type { RoutePlan } from './route-plan.ts';
export type { GuardrailLookup, NamedGuardrail } from './guardrail-lookup.ts';
export type { SecretReferences } from './secrets.ts';
