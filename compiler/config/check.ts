// CHECK → plan → emit. Schema validation (the generated all-errors validator, so the runtime never
// needs Ajv's compiler) followed by the semantic rules; every error of a config in one pass.
import { validateConfigAllErrors } from '../../generated/config-validator.js';
import type { ConfigError } from './errors.ts';
import { formatSchemaErrors, type SchemaError } from './schema-errors.ts';
import { checkHooks } from './hook-checks.ts';
import { checkProviderNames } from './provider-check.ts';
import { checkHeaderValues } from './header-values.ts';
import { checkSemantics } from './semantic.ts';
import type { GuardrailLookup } from './guardrail-lookup.ts';
import { patternBudget } from './linear-regex.ts';

export function checkConfigErrors(config: unknown, guardrails: GuardrailLookup | null = null): ConfigError[] {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    return [{ code: 'CFG_NOT_AN_OBJECT', pointer: '', message: `A config must be a JSON object, not ${Array.isArray(config) ? 'an array' : config === null ? 'null' : `a ${typeof config}`}.` }];
  }
  const errors: ConfigError[] = [];
  if (!validateConfigAllErrors(config)) {
    errors.push(...formatSchemaErrors((validateConfigAllErrors.errors ?? []) as SchemaError[], config));
  }
  // One budget for every pattern of the config: conditions, rules and schema patterns alike.
  const patterns = patternBudget();
  errors.push(...checkSemantics(config, patterns));
  errors.push(...checkHooks(config, guardrails, patterns));
  errors.push(...checkProviderNames(config));
  errors.push(...checkHeaderValues(config));
  return sortByPointer(errors);
}

function sortByPointer(errors: ConfigError[]): ConfigError[] {
  return errors.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}
