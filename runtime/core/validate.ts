// Applies the generated Ajv validators (generated/validators.js, looked up by export name) to request
// bodies and query strings, turning the first error into a 400 with a JSON pointer and a sentence.
import { GatewayError } from './errors.ts';

/** The shape Ajv standalone code exports: a function that records its errors on itself. */
export interface ValidationErrorLike {
  instancePath?: string;
  keyword: string;
  params?: Record<string, unknown>;
  message?: string;
}

export interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: ValidationErrorLike[] | null;
}

/** What a route says about its validators (runtime/server/match.ts RouteSpec has these fields). */
export interface ValidatedRoute {
  operationId: string;
  bodyValidator?: string;
  queryValidator?: string;
}

export class ValidatorRegistry {
  private readonly validators = new Map<string, GeneratedValidator>();

  /** `exports` is the module namespace of generated/validators.js, or any object of validators. */
  constructor(exports: Readonly<Record<string, unknown>>) {
    for (const name of Object.keys(exports)) {
      const value = exports[name];
      if (typeof value === 'function') this.validators.set(name, value as GeneratedValidator);
    }
  }

  get(name: string): GeneratedValidator {
    const validator = this.validators.get(name);
    if (validator === undefined) throw new Error(`no generated validator named ${name}`);
    return validator;
  }

  /** Fails at start-up, not on the first request, when the route table names a missing validator. */
  assertCovers(routes: readonly ValidatedRoute[]): void {
    for (const route of routes) {
      for (const name of [route.bodyValidator, route.queryValidator]) {
        if (name !== undefined && !this.validators.has(name)) {
          throw new Error(`route ${route.operationId} names validator ${name}, which generated/validators.js does not export`);
        }
      }
    }
  }
}

export function validateBody(validator: GeneratedValidator, body: unknown): void {
  if (validator(body)) return;
  const { pointer, message } = describeFirstError(validator.errors);
  throw new GatewayError('invalid_request_body', `Invalid request body: ${message}`, pointer);
}

/**
 * Query values arrive as strings. Rather than guess from the text, a value is converted only where the
 * schema rejected it for its type: digits become numbers, `true`/`false` booleans, a lone value an
 * array. Each value changes at most twice (string → array → items), so the loop is bounded.
 */
export function validateQuery(validator: GeneratedValidator, query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const value: Record<string, unknown> = { ...query };
  let budget = 2 * countStrings(value) + 1;
  while (!validator(value)) {
    const error = validator.errors?.[0];
    if (budget-- === 0 || error === undefined || !coerceAt(value, error)) {
      const { pointer, message } = describeFirstError(validator.errors);
      throw new GatewayError('invalid_query', `Invalid query string: ${repeatedParameter(value, error) ?? message}`, pointer);
    }
  }
  return value;
}

/**
 * `?limit=1&limit=2` reads as a list where the schema takes one value: "must be integer" would
 * puzzle whoever wrote two integers, so the message says what happened.
 */
function repeatedParameter(value: Record<string, unknown>, error: ValidationErrorLike | undefined): string | null {
  if (error?.keyword !== 'type') return null;
  const path = pointerTokens(error.instancePath ?? '');
  if (path.length !== 1 || !Array.isArray(value[path[0]])) return null;
  return `/${path[0]} takes one value, and it is given ${(value[path[0]] as unknown[]).length === 1 ? 'as a list (with [])' : 'more than once'}.`;
}

/** Turns `?a=1&a=2&b[]=x` into `{a: ['1','2'], b: ['x']}`; a single `a=1` stays a string. */
export function parseQuery(rawQuery: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [rawKey, item] of new URLSearchParams(rawQuery)) {
    const isList = rawKey.endsWith('[]');
    const key = isList ? rawKey.slice(0, -2) : rawKey;
    const existing = query[key];
    if (existing === undefined) query[key] = isList ? [item] : item;
    else if (Array.isArray(existing)) existing.push(item);
    else query[key] = [existing, item];
  }
  return query;
}

function countStrings(value: Record<string, unknown>): number {
  let count = 0;
  for (const key in value) {
    const item = value[key];
    count += Array.isArray(item) ? item.length + 1 : 1;
  }
  return count;
}

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function coerceAt(root: Record<string, unknown>, error: ValidationErrorLike): boolean {
  if (error.keyword !== 'type') return false;
  const path = pointerTokens(error.instancePath ?? '');
  if (path.length === 0 || path.length > 2) return false;
  let parent: Record<string, unknown> | unknown[] = root;
  if (path.length === 2) {
    const list = root[path[0]];
    if (!Array.isArray(list)) return false;
    parent = list;
  }
  const key = path[path.length - 1];
  const current = (parent as Record<string, unknown>)[key];
  if (typeof current !== 'string') return false;
  const wanted = String(error.params?.type ?? '');
  let next: unknown = current;
  if (wanted.includes('array') && path.length === 1) next = [current];
  else if (wanted.includes('integer') && INTEGER.test(current) && Number.isSafeInteger(Number(current))) next = Number(current);
  else if (wanted.includes('number') && NUMBER.test(current) && Number.isFinite(Number(current))) next = Number(current);
  else if (wanted.includes('boolean') && (current === 'true' || current === 'false')) next = current === 'true';
  else if (wanted.includes('null') && current === '') next = null;
  else return false;
  (parent as Record<string, unknown>)[key] = next;
  return true;
}

function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The pointer of the value at fault (for `required`, the missing property) and a readable sentence. */
export function describeFirstError(errors: readonly ValidationErrorLike[] | null | undefined): { pointer: string; message: string } {
  const error = mostTelling(errors);
  if (error === undefined) return { pointer: '', message: 'the value is not valid.' };
  const at = error.instancePath ?? '';
  const params = error.params ?? {};
  switch (error.keyword) {
    case 'required': {
      const pointer = `${at}/${escapeToken(String(params.missingProperty))}`;
      return { pointer, message: `${pointer} is required.` };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const pointer = `${at}/${escapeToken(name)}`;
      return { pointer, message: `${pointer} is not an allowed property.` };
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues.map((v) => JSON.stringify(v)).join(', ') : '';
      return { pointer: at, message: `${at || 'the value'} must be one of ${allowed}.` };
    }
    // Ajv's own words name no value ("must be equal to constant").
    case 'const':
      return { pointer: at, message: `${at || 'the value'} must be ${JSON.stringify(params.allowedValue)}.` };
    default:
      return { pointer: at, message: `${at || 'the value'} ${error.message ?? `fails ${error.keyword}`}.` };
  }
}

/**
 * The error that says most. Ajv stops at the first failing rule, except inside anyOf/oneOf, where it
 * keeps each alternative's failure before the combinator's own: the first of those is the first
 * alternative's ("/input must be string" for a list whose item is wrong). The one that got furthest
 * into the value is about what the client meant: deepest first, then a rule about the value's
 * members over one about its type.
 */
function mostTelling(errors: readonly ValidationErrorLike[] | null | undefined): ValidationErrorLike | undefined {
  if (errors === null || errors === undefined || errors.length === 0) return undefined;
  if (!errors.some((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) return errors[0];
  let best = errors[0];
  let bestScore = -1;
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const depth = (error.instancePath ?? '').split('/').length;
    const score = depth * 2 + (error.keyword === 'type' || error.keyword === 'enum' ? 0 : 1);
    if (score > bestScore) {
      best = error;
      bestScore = score;
    }
  }
  return best;
}
