// Parses a conditional-routing `query` (ARCHITECTURE §5) into a PlanQuery, reporting every problem.
// Syntax: an object whose keys are `$and` / `$or` (arrays of queries) or fields (`metadata.<key>`,
// `params.<path>`, `url.pathname`); a field's value is a bare value (meaning `$eq`) or an object of
// operators, all of which must hold.
import { checkPattern, type PatternChecker } from './linear-regex.ts';
import type { ComparisonOperator, FieldRef, PlanQuery } from './route-plan.ts';
import type { ConfigError } from './errors.ts';
import { escapePointerToken } from './json-locate.ts';
import { didYouMean } from './suggest.ts';

const COMPARISONS: readonly ComparisonOperator[] = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex'];
const ALL_OPERATORS = [...COMPARISONS, '$and', '$or'];

/** `patterns` checks each `$regex` (a config check passes its patternBudget). */
export function parseQuery(raw: unknown, pointer: string, errors: ConfigError[], patterns: PatternChecker = checkPattern): PlanQuery {
  const all: PlanQuery[] = [];
  if (!isPlainObject(raw)) {
    errors.push({ code: 'CFG_WRONG_TYPE', pointer, message: `The query at ${pointer} must be an object.` });
    return { op: 'and', all };
  }
  for (const [key, value] of Object.entries(raw)) {
    const at = `${pointer}/${escapePointerToken(key)}`;
    if (key === '$and' || key === '$or') {
      const parts = parseList(value, at, errors, patterns);
      all.push(key === '$and' ? { op: 'and', all: parts } : { op: 'or', any: parts });
    } else if (key.startsWith('$')) {
      errors.push({ code: 'CFG_UNKNOWN_OPERATOR', pointer: at, message: `Unknown query operator "${key}" at ${at}.`, hint: didYouMean(key, ALL_OPERATORS) ?? 'at the top of a query only $and and $or are operators' });
    } else {
      const field = parseField(key, at, errors);
      if (field) all.push(...parseConditions(field, value, at, errors, patterns));
    }
  }
  return all.length === 1 ? all[0] : { op: 'and', all };
}

function parseList(value: unknown, at: string, errors: ConfigError[], patterns: PatternChecker): PlanQuery[] {
  if (!Array.isArray(value) || value.length === 0) {
    errors.push({ code: 'CFG_INVALID_OPERAND', pointer: at, message: `${at.slice(at.lastIndexOf('/') + 1)} needs a non-empty array of queries.` });
    return [];
  }
  return value.map((item, index) => parseQuery(item, `${at}/${index}`, errors, patterns));
}

/** `messages[0]`: an item of an array written with brackets. */
const INDEXED_SEGMENT = /^[^[\]]+(\[\d+\])+$/;

function parseField(key: string, at: string, errors: ConfigError[]): FieldRef | null {
  const [root, ...path] = key.split('.');
  const wellFormed = path.length > 0 && path.every((segment) => segment.length > 0);
  // Metadata is flat (string values), so all after `metadata.` is one key, dots included, as limit
  // policies read it: `metadata.app.tier` reads the key "app.tier" (split, it could match nothing).
  if (wellFormed && root === 'metadata') return { root, path: [path.join('.')] };
  // `messages[0]` is JavaScript's way to an array item; here it is a key no body has.
  const indexed = root === 'params' ? path.find((segment) => INDEXED_SEGMENT.test(segment)) : undefined;
  if (wellFormed && indexed !== undefined) {
    errors.push({ code: 'CFG_INVALID_QUERY_FIELD', pointer: at, message: `"${key}" reads an array item with brackets, which no request has as a key.`, hint: `write the index as a segment: ${key.replace(/\[(\d+)\]/g, '.$1')}` });
    return null;
  }
  if (wellFormed && root === 'params') return { root, path };
  if (root === 'url' && path.length === 1 && path[0] === 'pathname') return { root: 'url', path };
  errors.push({
    code: 'CFG_INVALID_QUERY_FIELD',
    pointer: at,
    message: `"${key}" is not a query field.`,
    hint: didYouMean(root, ['metadata', 'params', 'url']) ?? 'use metadata.<key>, params.<path> or url.pathname',
  });
  return null;
}

function parseConditions(field: FieldRef, value: unknown, at: string, errors: ConfigError[], patterns: PatternChecker): PlanQuery[] {
  const isOperatorObject = isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'));
  if (!isOperatorObject) return [{ op: 'compare', field, operator: '$eq', value }];
  const out: PlanQuery[] = [];
  for (const [operator, operand] of Object.entries(value as Record<string, unknown>)) {
    const opAt = `${at}/${escapePointerToken(operator)}`;
    if (!(COMPARISONS as readonly string[]).includes(operator)) {
      errors.push({
        code: 'CFG_UNKNOWN_OPERATOR',
        pointer: opAt,
        message: operator.startsWith('$') ? `Unknown query operator "${operator}".` : `"${operator}" mixes a plain key into an operator object.`,
        hint: didYouMean(operator, COMPARISONS) ?? `operators on a field: ${COMPARISONS.join(' ')}`,
      });
      continue;
    }
    if (checkOperand(operator as ComparisonOperator, operand, opAt, errors, patterns)) {
      out.push({ op: 'compare', field, operator: operator as ComparisonOperator, value: operand });
    }
  }
  return out;
}

function checkOperand(operator: ComparisonOperator, operand: unknown, at: string, errors: ConfigError[], patterns: PatternChecker): boolean {
  switch (operator) {
    case '$in':
    case '$nin':
      if (Array.isArray(operand)) return true;
      errors.push({ code: 'CFG_INVALID_OPERAND', pointer: at, message: `${operator} needs an array of values.` });
      return false;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      if (typeof operand === 'number' || typeof operand === 'string') return true;
      errors.push({ code: 'CFG_INVALID_OPERAND', pointer: at, message: `${operator} compares numbers or strings; the operand is ${JSON.stringify(operand)}.` });
      return false;
    case '$regex':
      if (typeof operand !== 'string') {
        errors.push({ code: 'CFG_INVALID_OPERAND', pointer: at, message: '$regex needs the pattern as a string.' });
        return false;
      }
      {
        const check = patterns(operand);
        if (check.ok) return true;
        errors.push(check.unsupported
          ? { code: 'CFG_REGEX_UNSUPPORTED', pointer: at, message: `The pattern ${JSON.stringify(operand)} cannot run on the linear-time engine patterns run on: ${check.message}.` }
          : { code: 'CFG_INVALID_REGEX', pointer: at, message: `Invalid regular expression ${JSON.stringify(operand)}: ${check.message}.` });
        return false;
      }
    default:
      return true;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
