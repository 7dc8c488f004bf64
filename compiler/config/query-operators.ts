// Comparisons of conditional routing (ARCHITECTURE §5 "Conditional query"), one function per
// operator so emitted routers read like the config: `gte(readField(params, ["max_tokens"]), 1000)`.
//
//   readField(root, path): unknown          the value at `path`, or undefined when missing
//   compareEq(a, b): boolean                deep JSON equality (key order ignored)
//   eq(value, operand)        $eq           deep equality; a missing field equals nothing, not even null
//   ne(value, operand)        $ne           !eq: a missing field is $ne anything
//   gt/gte/lt/lte(value, operand)           only number with number or string with string
//                                           (UTF-16 code-unit order); any other pair is false
//   inList(value, list)       $in           the value, or when it is an array any of its elements,
//                                           deep-equals an entry of `list`; missing → false
//   notInList(value, list)    $nin          !inList: a missing field is $nin any list
//   matches(value, pattern)   $regex        only strings match; the pattern is compiled once by the
//                                           emitted router, on a linear-time engine (RE2 semantics)
//
// Values come from parsed JSON (request params, metadata), so no getters or cycles are expected.
// compareEq recurses only as deep as both sides have structure, and the operand comes from the
// config, so a deeply nested request value cannot exhaust the stack.

import { type LinearPattern, testPattern } from './linear-regex.ts';
import type { ComparisonOperator } from './route-plan.ts';

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * Own properties only: `__proto__`, `constructor`, `toString` are missing unless the JSON itself
 * carried them as keys. On arrays only index segments (`"0"`, `"12"`) are read; `length` is missing.
 */
export function readField(root: unknown, path: readonly string[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(key) || !Object.hasOwn(current, key)) return undefined;
    } else if (!Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function compareEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (aIsArray) {
    const left = a as unknown[];
    const right = b as unknown[];
    if (left.length !== right.length) return false;
    for (let i = 0; i < left.length; i++) if (!compareEq(left[i], right[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !compareEq(left[key], right[key])) return false;
  }
  return true;
}

export function eq(value: unknown, operand: unknown): boolean {
  return value !== undefined && compareEq(value, operand);
}

export function ne(value: unknown, operand: unknown): boolean {
  return !eq(value, operand);
}

function ordered(value: unknown, operand: unknown): boolean {
  return (typeof value === 'number' && typeof operand === 'number') || (typeof value === 'string' && typeof operand === 'string');
}

export function gt(value: unknown, operand: unknown): boolean {
  return ordered(value, operand) && (value as number) > (operand as number);
}

export function gte(value: unknown, operand: unknown): boolean {
  return ordered(value, operand) && (value as number) >= (operand as number);
}

export function lt(value: unknown, operand: unknown): boolean {
  return ordered(value, operand) && (value as number) < (operand as number);
}

export function lte(value: unknown, operand: unknown): boolean {
  return ordered(value, operand) && (value as number) <= (operand as number);
}

function listed(value: unknown, list: readonly unknown[]): boolean {
  for (const entry of list) if (compareEq(value, entry)) return true;
  return false;
}

export function inList(value: unknown, list: unknown): boolean {
  if (value === undefined || !Array.isArray(list)) return false;
  if (listed(value, list)) return true;
  if (Array.isArray(value)) {
    for (const element of value) if (listed(element, list)) return true;
  }
  return false;
}

export function notInList(value: unknown, list: unknown): boolean {
  return !inList(value, list);
}

/** Every operator but `$regex` (whose operand is compiled first), by its config name. */
export const COMPARISONS: Readonly<Record<Exclude<ComparisonOperator, '$regex'>, (value: unknown, operand: unknown) => boolean>> = {
  $eq: eq, $ne: ne, $gt: gt, $gte: gte, $lt: lt, $lte: lte, $in: inList, $nin: notInList,
};

export function matches(value: unknown, pattern: LinearPattern): boolean {
  return typeof value === 'string' && testPattern(pattern, value);
}
