// Turns Ajv's errors for schema/config.json into config errors a person can act on: one error per
// cause (the 18-branch `anyOf` becomes a single "no key set" error), a stable code per keyword, and a
// "did you mean" drawn from the schema itself.
import configSchema from '../../schema/config.json' with { type: 'json' };
import type { ConfigError } from './errors.ts';
import { escapePointerToken } from './json-locate.ts';
import { didYouMean } from './suggest.ts';

export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** Present because the config validator is generated with `verbose`. */
  parentSchema?: unknown;
}

const KEY_SETS: string[][] = (configSchema.anyOf as Array<{ required: string[] }>).map((branch) => branch.required);
const KEY_SET_BRANCH = /^#\/anyOf\/\d+\//;
const CONDITIONAL_THEN = /\/strategy\/then\/required$/;

export function formatSchemaErrors(errors: readonly SchemaError[], config: unknown): ConfigError[] {
  const out: ConfigError[] = [];
  const seen = new Set<string>();
  const push = (error: ConfigError) => {
    const key = `${error.code}\u0000${error.pointer}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(error);
  };
  for (const error of errors) {
    // Branch errors of the key-set anyOf and the wrappers of if/then add nothing to the anyOf error itself.
    if (KEY_SET_BRANCH.test(error.schemaPath) || error.keyword === 'if') continue;
    const formatted = formatOne(error, config);
    if (formatted) push(formatted);
  }
  return out;
}

function formatOne(error: SchemaError, config: unknown): ConfigError | null {
  const at = error.instancePath;
  const params = error.params;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = allowedKeys(error.parentSchema);
      const suggestion = didYouMean(key, allowed);
      return {
        code: 'CFG_UNKNOWN_KEY',
        pointer: `${at}/${escapePointerToken(key)}`,
        message: `Unknown key "${key}"${where(at)}.`,
        hint: suggestion ?? (allowed.length > 0 ? `allowed keys here: ${allowed.join(', ')}` : undefined),
      };
    }
    case 'required': {
      const missing = String(params.missingProperty);
      if (CONDITIONAL_THEN.test(error.schemaPath)) {
        return {
          code: 'CFG_CONDITIONAL_INCOMPLETE',
          pointer: at,
          message: `Conditional mode needs "${missing}"${where(at)}.`,
          hint: missing === 'default' ? 'add "default": "<name of a target>"' : 'add "conditions": [{"query": {…}, "then": "<name of a target>"}]',
        };
      }
      return { code: 'CFG_MISSING_KEY', pointer: at, message: `Missing required key "${missing}"${where(at)}.`, hint: `add "${missing}"` };
    }
    case 'anyOf':
      if (error.schemaPath === '#/anyOf') return noKeySet(at, valueAt(config, at));
      return { code: 'CFG_SCHEMA_VIOLATION', pointer: at, message: `The value${where(at)} matches none of the allowed forms.` };
    case 'dependentRequired':
      return {
        code: 'CFG_STRATEGY_WITHOUT_TARGETS',
        pointer: at,
        message: `"strategy" is set${where(at)} but "targets" is missing.`,
        hint: 'add "targets": [ … ] with the configs to route to',
      };
    case 'type':
      return {
        code: 'CFG_WRONG_TYPE',
        pointer: at,
        message: `${subject(at)} must be ${article(String(params.type))}, not ${describe(valueAt(config, at))}.`,
      };
    case 'enum':
    case 'const': {
      const allowed = (error.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue]).map(String);
      const value = valueAt(config, at);
      return {
        code: 'CFG_INVALID_VALUE',
        pointer: at,
        message: `${subject(at)} is ${JSON.stringify(value)}; allowed: ${allowed.map((v) => JSON.stringify(v)).join(', ')}.`,
        hint: typeof value === 'string' ? didYouMean(value, allowed) : undefined,
      };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return { code: 'CFG_OUT_OF_RANGE', pointer: at, message: `${subject(at)} ${rangeText(error.keyword, params.limit)}; it is ${JSON.stringify(valueAt(config, at))}.` };
    case 'pattern':
    case 'format':
      return { code: 'CFG_INVALID_FORMAT', pointer: at, message: `${subject(at)} ${formatText(at, error)}.` };
    default:
      return { code: 'CFG_SCHEMA_VIOLATION', pointer: at, message: `${subject(at)} ${error.message ?? 'breaks a rule of the config schema'}.` };
  }
}

function noKeySet(at: string, value: unknown): ConfigError {
  const present = new Set(value !== null && typeof value === 'object' ? Object.keys(value) : []);
  // The key set the config is nearest to completing is the one its author most likely meant.
  let best: string[] = KEY_SETS[0];
  let bestScore = -Infinity;
  for (const set of KEY_SETS) {
    const have = set.filter((k) => present.has(k)).length;
    const score = have === 0 ? -set.length : have * 10 - (set.length - have);
    if (score > bestScore) {
      best = set;
      bestScore = score;
    }
  }
  const missing = best.filter((k) => !present.has(k));
  const provider = (value as { provider?: unknown } | null)?.provider;
  if (typeof provider === 'string' && provider.startsWith('@') && present.size === 1) {
    return {
      code: 'CFG_NO_KEY_SET',
      pointer: at,
      message: `The config${where(at)} names only the provider slug ${JSON.stringify(provider)}, which is none of the key sets that make a config valid.`,
      hint: 'send the slug as the x-gateway-provider header instead, or add another key set such as "retry"',
    };
  }
  return {
    code: 'CFG_NO_KEY_SET',
    pointer: at,
    message: `The config${where(at)} has none of the key sets that make a config valid (for example provider + api_key, virtual_key, or strategy + targets).`,
    hint: bestScore > 0 ? `add ${missing.map((k) => `"${k}"`).join(' and ')} to complete ${best.join(' + ')}` : 'add "provider" and "api_key", or "virtual_key", or "strategy" and "targets"',
  };
}

/** The property names the schema allows at the object whose `additionalProperties` failed. */
function allowedKeys(parentSchema: unknown): string[] {
  const properties = parentSchema !== null && typeof parentSchema === 'object' ? (parentSchema as { properties?: object }).properties : undefined;
  return properties ? Object.keys(properties) : [];
}

export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

function where(pointer: string): string {
  return pointer === '' ? '' : ` at ${pointer}`;
}

function subject(pointer: string): string {
  if (pointer === '') return 'The config';
  const last = pointer.slice(pointer.lastIndexOf('/') + 1);
  return /^\d+$/.test(last) ? `Item ${pointer}` : `"${last.replace(/~1/g, '/').replace(/~0/g, '~')}" (${pointer})`;
}

function article(type: string): string {
  const name = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (Number.isInteger(value)) return `the number ${String(value)}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to represent';
  return article(typeof value);
}

function rangeText(keyword: string, limit: unknown): string {
  switch (keyword) {
    case 'minimum': return `must be at least ${String(limit)}`;
    case 'maximum': return `must be at most ${String(limit)}`;
    case 'exclusiveMinimum': return `must be greater than ${String(limit)}`;
    case 'exclusiveMaximum': return `must be less than ${String(limit)}`;
    case 'minLength': return `must have at least ${String(limit)} character(s)`;
    case 'maxLength': return `must have at most ${String(limit)} characters`;
    case 'minItems': return `must have at least ${String(limit)} item(s)`;
    default: return `must have at most ${String(limit)} items`;
  }
}

function formatText(pointer: string, error: SchemaError): string {
  if (pointer.endsWith('/custom_host')) return 'must be an http:// or https:// URL';
  return error.keyword === 'format' ? `must be a valid ${String(error.params.format)}` : `must match ${String(error.params.pattern)}`;
}

