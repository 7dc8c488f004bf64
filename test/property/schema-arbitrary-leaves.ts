// Scalar generators: numbers from merged bounds (with Ajv `$data` bounds bound to sibling values) and
// strings from length, pattern and format. Each says whether its output already meets every keyword
// it was given; when not, the caller checks the value against the schema.
import fc from 'fast-check';
import { isData } from './schema-arbitrary-constraints.ts';
import type { SchemaObject } from './schema-arbitrary-registry.ts';

/** `$data` pointers of a property's schema mapped to the current values they point at. */
export type Bindings = ReadonlyMap<string, unknown>;

export interface Leaf {
  readonly arb: fc.Arbitrary<unknown>;
  /** False when some keyword is only approximated and the value must still be checked. */
  readonly exact: boolean;
}

// Unbounded integers stay in a range where arithmetic on them is exact.
const INTEGER_SPAN = 2 ** 31;

interface Bounds {
  lo: number;
  hi: number;
  loExclusive: boolean;
  hiExclusive: boolean;
  multiples: number[];
}

/** The number a bound keyword stands for: a literal, a bound `$data` value, or nothing. */
function boundValue(raw: unknown, bindings: Bindings | undefined): number | undefined | 'unsatisfiable' {
  if (typeof raw === 'number') return raw;
  if (!isData(raw)) return undefined;
  const bound = bindings?.get(raw.$data);
  if (bound === undefined) return undefined;
  // Ajv rejects a number when its `$data` bound is present but not a number.
  return typeof bound === 'number' ? bound : 'unsatisfiable';
}

function mergeBounds(members: readonly SchemaObject[], bindings: Bindings | undefined): Bounds | undefined {
  const b: Bounds = { lo: -Infinity, hi: Infinity, loExclusive: false, hiExclusive: false, multiples: [] };
  for (const s of members) {
    for (const keyword of ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum']) {
      const v = boundValue(s[keyword], bindings);
      if (v === 'unsatisfiable') return undefined;
      if (v === undefined) continue;
      const exclusive = keyword.startsWith('exclusive');
      if (keyword.endsWith('inimum')) {
        if (v > b.lo || (v === b.lo && exclusive)) [b.lo, b.loExclusive] = [v, exclusive];
      } else if (v < b.hi || (v === b.hi && exclusive)) [b.hi, b.hiExclusive] = [v, exclusive];
    }
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0) b.multiples.push(s.multipleOf);
  }
  return b;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function integerRange(b: Bounds): [number, number] {
  let lo = Number.isFinite(b.lo) ? (b.loExclusive ? Math.floor(b.lo) + 1 : Math.ceil(b.lo)) : -Infinity;
  let hi = Number.isFinite(b.hi) ? (b.hiExclusive ? Math.ceil(b.hi) - 1 : Math.floor(b.hi)) : Infinity;
  if (!Number.isFinite(lo) && !Number.isFinite(hi)) [lo, hi] = [-INTEGER_SPAN, INTEGER_SPAN - 1];
  else if (!Number.isFinite(hi)) hi = lo + INTEGER_SPAN;
  else if (!Number.isFinite(lo)) lo = hi - INTEGER_SPAN;
  return [Math.max(lo, Number.MIN_SAFE_INTEGER), Math.min(hi, Number.MAX_SAFE_INTEGER)];
}

function multiplesIn(lo: number, hi: number, step: number): fc.Arbitrary<number> | null {
  const kLo = Math.ceil(lo / step);
  const kHi = Math.floor(hi / step);
  if (kLo > kHi) return null;
  return fc.integer({ min: kLo, max: kHi }).map((k) => k * step + 0);
}

function integers(b: Bounds): fc.Arbitrary<number> | null {
  const [lo, hi] = integerRange(b);
  const step = b.multiples.reduce((acc, m) => (acc * m) / gcd(acc, m), 1);
  if (step > 1) return multiplesIn(lo, hi, step);
  return lo > hi ? null : fc.integer({ min: lo, max: hi });
}

/** Every allowed integer, when there are few enough to list (so a check can pick among them exactly). */
export function integerDomain(members: readonly SchemaObject[], bindings: Bindings | undefined, limit: number): number[] | undefined {
  const b = mergeBounds(members, bindings);
  if (b === undefined) return [];
  if (!b.multiples.every(Number.isInteger)) return undefined;
  const [lo, hi] = integerRange(b);
  if (hi - lo >= limit) return undefined;
  const step = b.multiples.reduce((acc, m) => (acc * m) / gcd(acc, m), 1);
  const out: number[] = [];
  for (let k = Math.ceil(lo / step); k * step <= hi; k++) out.push(k * step + 0);
  return out;
}

/**
 * Numbers within the merged bounds. `fractional` asks for non-integers only (what is left of
 * "number" once "integer" is negated): k + 0.5 is never whole and stays exact below 2^52.
 */
export function numberLeaf(members: readonly SchemaObject[], integerOnly: boolean, bindings?: Bindings, fractional = false): Leaf | null {
  const b = mergeBounds(members, bindings);
  if (b === undefined) return null;
  if (b.lo > b.hi || (b.lo === b.hi && (b.loExclusive || b.hiExclusive))) return null;
  if (fractional) {
    const [lo, hi] = integerRange({ ...b, lo: b.lo - 0.5, hi: b.hi - 0.5 });
    return lo > hi ? null : { arb: fc.integer({ min: lo, max: hi }).map((k) => k + 0.5), exact: b.multiples.length === 0 };
  }
  const integral = b.multiples.every(Number.isInteger);
  if (!integral) {
    // Fractional multipleOf: k·step is right up to float rounding, which Ajv may judge otherwise.
    const step = b.multiples[0];
    const lo = Number.isFinite(b.lo) ? b.lo : (Number.isFinite(b.hi) ? b.hi : 0) - 1e6 * step;
    const hi = Number.isFinite(b.hi) ? b.hi : lo + 2e6 * step;
    const arb = multiplesIn(lo, hi, step);
    return arb === null ? null : { arb, exact: false };
  }
  const ints = integers(b);
  if (integerOnly || b.multiples.length > 0) return ints === null ? null : { arb: ints, exact: true };
  const doubles = fc.double({
    min: Number.isFinite(b.lo) ? b.lo : undefined,
    max: Number.isFinite(b.hi) ? b.hi : undefined,
    minExcluded: b.loExclusive,
    maxExcluded: b.hiExclusive,
    noNaN: true,
    noDefaultInfinity: true,
  });
  return { arb: ints === null ? doubles : fc.oneof(ints, doubles), exact: true };
}

// Mostly printable ASCII, sometimes any Unicode scalar value: one unit is one code point, which is
// how JSON Schema counts string length.
const codePoint = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xa0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff) },
).map((c) => String.fromCodePoint(c));

const isoDates = fc
  .date({ min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('2100-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

// Made on first use: building fc.webUrl alone costs most of a second.
const FORMATS: Readonly<Record<string, () => fc.Arbitrary<string>>> = {
  uuid: () => fc.uuid(),
  'date-time': () => isoDates,
  date: () => isoDates.map((s) => s.slice(0, 10)),
  time: () => isoDates.map((s) => s.slice(11)),
  uri: () => fc.webUrl({ withQueryParameters: true, withFragments: true }),
  'uri-reference': () => fc.webUrl(),
  url: () => fc.webUrl(),
  email: () => fc.emailAddress(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  byte: () => fc.base64String(),
};
const formatCache = new Map<string, fc.Arbitrary<string>>();

function formatArbitrary(format: string): fc.Arbitrary<string> | undefined {
  const make = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  if (make === undefined) return undefined;
  let arb = formatCache.get(format);
  if (arb === undefined) {
    arb = make();
    formatCache.set(format, arb);
  }
  return arb;
}

export function stringLeaf(members: readonly SchemaObject[]): Leaf | null {
  let minLength = 0;
  let maxLength = Infinity;
  const patterns: string[] = [];
  const formats = new Set<string>();
  for (const s of members) {
    if (typeof s.minLength === 'number') minLength = Math.max(minLength, s.minLength);
    if (typeof s.maxLength === 'number') maxLength = Math.min(maxLength, s.maxLength);
    if (typeof s.pattern === 'string') patterns.push(s.pattern);
    if (typeof s.format === 'string') formats.add(s.format);
  }
  if (minLength > maxLength) return null;
  const lengthFree = minLength === 0 && maxLength === Infinity;
  const plain = fc.string({ unit: codePoint, minLength, maxLength: Number.isFinite(maxLength) ? maxLength : undefined });
  const [format] = formats;
  if (format !== undefined) {
    const known = formatArbitrary(format);
    if (known === undefined) return { arb: plain, exact: false };
    return { arb: known, exact: formats.size === 1 && patterns.length === 0 && lengthFree };
  }
  if (patterns.length > 0) {
    try {
      // Short draws keep a length limit from rejecting most of what the pattern produces.
      const arb = fc.stringMatching(new RegExp(patterns[0], 'u'), { size: Number.isFinite(maxLength) ? 'xsmall' : undefined });
      return { arb, exact: patterns.length === 1 && lengthFree };
    } catch {
      return { arb: plain, exact: false };
    }
  }
  return { arb: plain, exact: true };
}
