// Hooks and guardrails checked when a config compiles (ARCHITECTURE §5): every check id must name a
// built-in check (generated/checks.ts, from schema/checks/), its parameters must fit that check's
// schema, a `rule` must compile on the linear-time regex engine, a `jsonSchema` parameter must be a
// valid JSON Schema, a check's parameters must let it tell requests apart (a minimum above the
// maximum, no endpoint allowed), and a guardrail named by string must exist. Each mistake has its own code, a
// pointer to where it is, and a "did you mean" where one helps.
import { CHECKS, type CheckSpec } from '../../generated/checks.ts';
import requestTypesSchema from '../../schema/checks/allowedRequestTypes-check.json' with { type: 'json' };
import { schemaProblem } from './check-schema-problem.ts';
import { type ConfigError, KEY_ERRORS, MAX_TARGET_DEPTH } from './errors.ts';
import { escapePointerToken } from './json-locate.ts';
import { checkPattern, type PatternChecker, patternBudget } from './linear-regex.ts';
import { isPlainObject } from './query.ts';
import { formatSchemaErrors, type SchemaError } from './schema-errors.ts';
import { didYouMean } from './suggest.ts';
import type { GuardrailLookup } from './guardrail-lookup.ts';

const HOOK_FIELDS = ['before_request_hooks', 'after_request_hooks'] as const;
const GUARDRAIL_FIELDS = ['input_guardrails', 'output_guardrails'] as const;
/** Keys of a guardrail object that are not checks. */
export const GUARDRAIL_RESERVED_KEYS: ReadonlySet<string> = new Set(['id', 'deny', 'async', 'on_fail', 'on_success']);
const CHECK_IDS = Object.keys(CHECKS);
const RE2_HINT = 'patterns use RE2 syntax: classes, alternation, anchors and repetition work; rewrite lookarounds and back-references, and keep counts ({n}) small';

/** Checks whose `rule` parameter is a pattern. */
const PATTERN_CHECKS = new Set(['default.regexMatch', 'default.regexReplace']);
/** Counting checks' bounds: a minimum above the maximum admits no count, so the check could never pass. */
const BOUNDS: Readonly<Record<string, readonly [string, string, string]>> = {
  'default.wordCount': ['minWords', 'maxWords', 'words'],
  'default.sentenceCount': ['minSentences', 'maxSentences', 'sentences'],
  'default.characterCount': ['minCharacters', 'maxCharacters', 'characters'],
};

/**
 * Every hook and guardrail of the config's target tree; named guardrails must be in `guardrails`.
 * `patterns` checks each rule and schema pattern (checkConfigErrors passes the config's patternBudget).
 */
export function checkHooks(config: unknown, named: GuardrailLookup | null = null, patterns: PatternChecker = checkPattern): ConfigError[] {
  const errors: ConfigError[] = [];
  const walk = (node: unknown, at: string, depth: number): void => {
    // Deeper trees are reported by the semantic rules (CFG_TOO_DEEP).
    if (!isPlainObject(node) || depth > MAX_TARGET_DEPTH) return;
    for (const field of HOOK_FIELDS) {
      const hooks = node[field];
      if (!Array.isArray(hooks)) continue;
      hooks.forEach((hook, h) => {
        if (!isPlainObject(hook) || !Array.isArray(hook.checks)) return;
        hook.checks.forEach((check, c) => {
          if (!isPlainObject(check) || typeof check.id !== 'string') return;
          const pointer = `${at}/${field}/${h}/checks/${c}`;
          checkOne(check.id, check.parameters, `${pointer}/id`, `${pointer}/parameters`, config, errors, patterns);
        });
      });
    }
    for (const field of GUARDRAIL_FIELDS) {
      const guardrails = node[field];
      if (!Array.isArray(guardrails)) continue;
      guardrails.forEach((guardrail, g) => {
        const pointer = `${at}/${field}/${g}`;
        if (typeof guardrail === 'string') {
          if (named?.get(guardrail) !== undefined) return;
          const names = named?.names() ?? [];
          errors.push({
            code: 'CFG_UNKNOWN_GUARDRAIL',
            pointer,
            message: `No guardrail is named ${JSON.stringify(guardrail)} ${named === null ? '(no guardrails are known where this config compiles)' : `in ${named.where}`}.`,
            hint: didYouMean(guardrail, names) ?? (names.length === 0 ? 'create it (POST /v1/guardrails, or a file in the guardrails folder beside the configs), or write it inline as an object' : `known guardrails: ${names.slice(0, 10).join(', ')}`),
          });
          return;
        }
        if (!isPlainObject(guardrail)) return;
        if (guardrail.async === true && denies(guardrail)) {
          errors.push({
            code: 'CFG_ASYNC_GUARDRAIL_DENIES',
            pointer: `${pointer}/async`,
            message: 'An async guardrail runs after the request went on and only logs, so it cannot deny.',
            hint: 'drop "async" to let it deny, or drop "deny" to keep it async',
          });
        }
        for (const [key, parameters] of Object.entries(guardrail)) {
          if (GUARDRAIL_RESERVED_KEYS.has(key)) continue;
          const at = `${pointer}/${escapePointerToken(key)}`;
          checkOne(key, parameters, at, at, config, errors, patterns);
        }
      });
    }
    checkDistinctIds(node, at, errors);
    if (Array.isArray(node.targets)) node.targets.forEach((child, i) => walk(child, `${at}/targets/${i}`, depth + 1));
  };
  walk(config, '', 0);
  return errors;
}

/** The fields whose hooks run together, before the request and after each attempt. */
const PHASES = [
  { name: 'before-request', fields: ['before_request_hooks', 'input_guardrails'] },
  { name: 'after-request', fields: ['after_request_hooks', 'output_guardrails'] },
] as const;

/**
 * One node's hooks of a phase each have their own id: results (`hook_results`) and feedback name the
 * hook by id, and two of one name could not be told apart. A guardrail named by string has its name
 * for id; an object guardrail without an id gets its place (`input_guardrails[1]`), never a clash.
 */
function checkDistinctIds(node: Record<string, unknown>, at: string, errors: ConfigError[]): void {
  for (const phase of PHASES) {
    const seen = new Set<string>();
    for (const field of phase.fields) {
      const list = node[field];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        const named = typeof entry === 'string';
        const id = named ? entry : isPlainObject(entry) && typeof entry.id === 'string' ? entry.id : null;
        if (id === null) return;
        if (!seen.has(id)) {
          seen.add(id);
          return;
        }
        errors.push({
          code: 'CFG_DUPLICATE_HOOK_ID',
          pointer: named ? `${at}/${field}/${i}` : `${at}/${field}/${i}/id`,
          message: `Another ${phase.name} hook or guardrail of this ${at === '' ? 'config' : 'target'} is named ${JSON.stringify(id)}: their results and feedback could not be told apart.`,
          hint: 'give each hook and guardrail of a phase its own id (a guardrail used twice runs twice: list it once)',
        });
      });
    }
  }
}

/**
 * A guardrail in its stored form (POST /v1/guardrails, a file in the guardrails folder), after its
 * schema: every check id known, its parameters valid, and no async guardrail that denies.
 */
export function checkNamedGuardrail(guardrail: Record<string, unknown>): ConfigError[] {
  const errors: ConfigError[] = [];
  const patterns = patternBudget();
  if (guardrail.async === true && denies(guardrail)) {
    errors.push({ code: 'CFG_ASYNC_GUARDRAIL_DENIES', pointer: '/async', message: 'An async guardrail runs after the request went on and only logs, so it cannot deny.', hint: 'drop "async" to let it deny, or drop "deny" to keep it async' });
  }
  const checks = Array.isArray(guardrail.checks) ? guardrail.checks : [];
  checks.forEach((check, i) => {
    if (isPlainObject(check) && typeof check.id === 'string') checkOne(check.id, check.parameters ?? {}, `/checks/${i}/id`, `/checks/${i}/parameters`, guardrail, errors, patterns);
  });
  return errors;
}

function denies(guardrail: Record<string, unknown>): boolean {
  const onFail = guardrail.on_fail;
  const onSuccess = guardrail.on_success;
  return guardrail.deny === true || (isPlainObject(onFail) && onFail.deny === true) || (isPlainObject(onSuccess) && onSuccess.deny === true);
}

function checkOne(id: string, parameters: unknown, idPointer: string, parametersPointer: string, config: unknown, errors: ConfigError[], patterns: PatternChecker): void {
  const spec: CheckSpec | undefined = Object.hasOwn(CHECKS, id) ? CHECKS[id] : undefined;
  if (spec === undefined) {
    errors.push({
      code: 'CFG_UNKNOWN_CHECK',
      pointer: idPointer,
      message: `Unknown check ${JSON.stringify(id)}.`,
      hint: didYouMean(id, CHECK_IDS) ?? `built-in checks: ${CHECK_IDS.join(', ')}`,
    });
    return;
  }
  // Not an object: the config schema reports that already.
  if (!isPlainObject(parameters)) return;
  if (!spec.validate(parameters)) {
    const raw = (spec.validate.errors ?? []) as SchemaError[];
    // The parameters' own schema: re-rooted at their place in the config, worded like config errors.
    const rooted = raw.map((e) => ({ ...e, instancePath: parametersPointer + e.instancePath, parentSchema: { properties: Object.fromEntries(spec.parameters.map((p) => [p, {}])) } }));
    for (const error of formatSchemaErrors(rooted, config)) {
      const own: ConfigError = { ...error, code: 'CFG_INVALID_CHECK_PARAMETERS', message: `${id}: ${error.message}` };
      if (error.code === 'CFG_UNKNOWN_KEY') KEY_ERRORS.add(own);
      errors.push(own);
    }
    return;
  }
  const params = parameters as Record<string, unknown>;
  if (PATTERN_CHECKS.has(id) && typeof params.rule === 'string') {
    const checked = patterns(params.rule);
    if (!checked.ok) {
      errors.push({
        code: 'CFG_INVALID_CHECK_REGEX',
        pointer: `${parametersPointer}/rule`,
        message: `${id}: the rule ${checked.unsupported ? 'cannot run on the linear-time engine' : 'is not a valid regular expression'}: ${checked.message}.`,
        hint: RE2_HINT,
      });
    }
  }
  const bounds = Object.hasOwn(BOUNDS, id) ? BOUNDS[id] : undefined;
  if (bounds !== undefined) {
    const [minKey, maxKey, unit] = bounds;
    const min = params[minKey];
    const max = params[maxKey];
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      errors.push({
        code: 'CFG_CHECK_CONSTANT_VERDICT',
        pointer: `${parametersPointer}/${minKey}`,
        message: `${id}: ${minKey} (${min}) is above ${maxKey} (${max}), so no text has a number of ${unit} that passes.`,
        hint: `swap them, or lower ${minKey} to ${max} or less`,
      });
    }
    // No bound at all: every text has at least 0 of them.
    if ((min === undefined || (typeof min === 'number' && min <= 0)) && max === undefined) {
      errors.push({
        code: 'CFG_CHECK_CONSTANT_VERDICT',
        pointer: parametersPointer,
        message: `${id}: without ${maxKey} or a ${minKey} above 0, every text has a number of ${unit} that passes.`,
        hint: `set ${maxKey}, or ${minKey} of 1 or more`,
      });
    }
  }
  if (id === 'default.allowedRequestTypes') {
    const problem = requestTypesProblem(params.allowedTypes, params.blockedTypes);
    if (problem !== null) {
      errors.push({ code: 'CFG_CHECK_CONSTANT_VERDICT', pointer: parametersPointer, message: `${id}: ${problem}.`, hint: 'list the endpoints to allow in allowedTypes, or those to refuse in blockedTypes' });
    }
  }
  if (id === 'default.jsonSchema' && isPlainObject(params.schema)) {
    const problem = schemaProblem(params.schema, patterns);
    if (problem !== null) {
      const { message, ofPattern } = problem;
      errors.push({
        code: 'CFG_INVALID_CHECK_SCHEMA',
        pointer: `${parametersPointer}/schema`,
        message: ofPattern ? `default.jsonSchema: in the schema, ${message}.` : `default.jsonSchema: the schema is not a valid JSON Schema: ${message}.`,
        hint: ofPattern ? `a schema's pattern and patternProperties run on the linear-time engine: ${RE2_HINT}` : 'write a JSON Schema (draft 2020-12), e.g. {"type": "object", "required": ["answer"]}',
      });
    }
  }
}

/** The endpoint types allowedRequestTypes names (its parameter schema's enum). */
const REQUEST_TYPES: readonly string[] = requestTypesSchema.properties.allowedTypes.items.enum;

/** Why allowedRequestTypes' lists would give every request the same verdict, or null when they tell endpoints apart. */
function requestTypesProblem(allowed: unknown, blocked: unknown): string | null {
  const refused = new Set(Array.isArray(blocked) ? blocked : []);
  const passing = REQUEST_TYPES.filter((type) => !refused.has(type) && (!Array.isArray(allowed) || allowed.includes(type)));
  if (passing.length === 0) return Array.isArray(allowed) && allowed.length === 0 ? 'allowedTypes is empty, so no endpoint passes' : 'every endpoint is blocked or not allowed, so none passes';
  if (passing.length === REQUEST_TYPES.length) return allowed === undefined && refused.size === 0 ? 'neither allowedTypes nor blockedTypes is given, so every endpoint passes' : 'every endpoint is allowed and none blocked, so every one passes';
  return null;
}
