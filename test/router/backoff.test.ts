import { describe, expect } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { fullJitterDelayMs, retryAfterDelayMs } from '../../runtime/router/backoff.ts';
import { parseHttpDate } from '../../runtime/router/http-date.ts';

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const CAP = 60_000;

describe('fullJitterDelayMs', () => {
  test.prop(
    [
      fc.integer({ min: 0, max: 2000 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 120_000 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    ],
    { numRuns: 500 },
  )('is a whole number within [0, min(cap, base·2^retry)]', (retry, base, cap, r) => {
    const delay = fullJitterDelayMs(retry, base, cap, () => r);
    expect(Number.isInteger(delay)).toBe(true);
    expect(delay).toBeGreaterThanOrEqual(0);
    // base 0 times 2^1024 (= Infinity) is NaN in floating point; the ceiling is 0 then.
    expect(delay).toBeLessThanOrEqual(base === 0 ? 0 : Math.min(cap, base * 2 ** retry));
  });

  test.prop([fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 1000 })], { numRuns: 100 })(
    'spans the whole interval: random 0 gives 0, random just below 1 gives the ceiling',
    (retry, base) => {
      const ceiling = Math.min(CAP, base * 2 ** retry);
      expect(fullJitterDelayMs(retry, base, CAP, () => 0)).toBe(0);
      expect(fullJitterDelayMs(retry, base, CAP, () => 1 - Number.EPSILON)).toBe(ceiling - 1);
    },
  );

  test('grows exponentially until the cap', () => {
    const almostOne = (): number => 0.999999;
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => fullJitterDelayMs(i, 100, 2500, almostOne))).toEqual([99, 199, 399, 799, 1599, 2499, 2499]);
  });

  test('huge retry indices and misbehaving random sources stay in bounds', () => {
    expect(fullJitterDelayMs(5000, 100, 1000, () => 0.5)).toBe(500);
    expect(fullJitterDelayMs(2, 100, 1000, () => Number.NaN)).toBe(0);
    expect(fullJitterDelayMs(2, 100, 1000, () => 7)).toBe(0);
    expect(fullJitterDelayMs(-3, 100, 1000, () => 0.5)).toBe(50);
    expect(fullJitterDelayMs(1024, 0, 1000, () => 0.5)).toBe(0);
  });
});

describe('retryAfterDelayMs', () => {
  const table: Array<[string, Record<string, string | string[] | undefined>, number | null]> = [
    ['nothing', {}, null],
    ['undefined header', { 'retry-after': undefined }, null],
    ['delta-seconds', { 'retry-after': '3' }, 3000],
    ['zero seconds', { 'retry-after': '0' }, 0],
    ['fractional seconds', { 'retry-after': '1.5' }, 1500],
    ['padded seconds', { 'retry-after': ' 2 ' }, 2000],
    ['seconds above the cap', { 'retry-after': '3600' }, CAP],
    ['milliseconds', { 'retry-after-ms': '250' }, 250],
    ['fractional milliseconds', { 'retry-after-ms': '12.75' }, 12.75],
    ['milliseconds above the cap', { 'retry-after-ms': '999999' }, CAP],
    ['ms wins over seconds', { 'retry-after-ms': '10', 'retry-after': '5' }, 10],
    ['garbage ms falls back to seconds', { 'retry-after-ms': 'soon', 'retry-after': '5' }, 5000],
    ['IMF-fixdate', { 'retry-after': 'Sun, 15 Jun 2025 12:00:07 GMT' }, 7000],
    ['RFC 850 date', { 'retry-after': 'Sunday, 15-Jun-25 12:00:04 GMT' }, 4000],
    ['asctime date', { 'retry-after': 'Sun Jun 15 12:00:09 2025' }, 9000],
    ['date far ahead is capped', { 'retry-after': 'Mon, 16 Jun 2025 12:00:00 GMT' }, CAP],
    ['date right now', { 'retry-after': 'Sun, 15 Jun 2025 12:00:00 GMT' }, 0],
    ['date in the past', { 'retry-after': 'Sun, 15 Jun 2025 11:59:59 GMT' }, null],
    ['negative seconds', { 'retry-after': '-5' }, null],
    ['negative ms', { 'retry-after-ms': '-5' }, null],
    ['exponent', { 'retry-after': '1e3' }, null],
    ['hex', { 'retry-after': '0x10' }, null],
    ['Infinity', { 'retry-after': 'Infinity' }, null],
    ['empty', { 'retry-after': '' }, null],
    ['words', { 'retry-after': 'in a minute' }, null],
    ['trailing dot', { 'retry-after': '5.' }, null],
    ['number then junk', { 'retry-after': '5 seconds' }, null],
    ['date without GMT', { 'retry-after': 'Sun, 15 Jun 2025 12:00:07' }, null],
    ['impossible date', { 'retry-after': 'Mon, 31 Feb 2025 12:00:07 GMT' }, null],
    ['impossible hour', { 'retry-after': 'Sun, 15 Jun 2025 25:00:07 GMT' }, null],
    ['array takes its first value', { 'retry-after': ['2', '9'] }, 2000],
  ];
  for (const [name, headers, expected] of table) {
    test(name, () => {
      expect(retryAfterDelayMs(headers, NOW, CAP)).toBe(expected);
    });
  }

  test.prop([fc.double({ min: 0, max: 1e7, noNaN: true }), fc.integer({ min: 0, max: 100_000 })], { numRuns: 300 })(
    'retry-after-ms in any decimal rendering is honoured and capped',
    (ms, cap) => {
      const rendered = ms.toFixed(3);
      expect(retryAfterDelayMs({ 'retry-after-ms': rendered }, NOW, cap)).toBe(Math.min(Number(rendered), cap));
    },
  );

  test.prop([fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 100_000 })], { numRuns: 300 })(
    'delta-seconds is honoured and capped',
    (seconds, cap) => {
      expect(retryAfterDelayMs({ 'retry-after': String(seconds) }, NOW, cap)).toBe(Math.min(seconds * 1000, cap));
    },
  );

  test.prop([fc.integer({ min: -86_400, max: 86_400 }), fc.integer({ min: 0, max: 100_000_000 })], { numRuns: 300 })(
    'an HTTP date from toUTCString waits until that second, capped; past dates give null',
    (offsetSeconds, cap) => {
      const at = NOW + offsetSeconds * 1000;
      const got = retryAfterDelayMs({ 'retry-after': new Date(at).toUTCString() }, NOW, cap);
      expect(got).toBe(offsetSeconds < 0 ? null : Math.min(offsetSeconds * 1000, cap));
    },
  );

  test.prop([fc.string({ maxLength: 40 })], { numRuns: 300 })('text that starts with a letter no date starts with is null', (rest) => {
    expect(retryAfterDelayMs({ 'retry-after': `x${rest}`, 'retry-after-ms': `q${rest}` }, NOW, CAP)).toBeNull();
  });

  test.prop([fc.string({ maxLength: 60 })], { numRuns: 500 })('never throws and never returns a negative or NaN wait', (text) => {
    const got = retryAfterDelayMs({ 'retry-after': text }, NOW, CAP);
    if (got !== null) {
      expect(got).toBeGreaterThanOrEqual(0);
      expect(got).toBeLessThanOrEqual(CAP);
    }
  });
});

describe('parseHttpDate', () => {
  test('reads the three RFC 9110 formats as the same instant', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    const now = Date.UTC(2025, 0, 1);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(expected);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(expected);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', now)).toBe(expected);
  });

  test('an RFC 850 two-digit year more than 50 years ahead belongs to the past century', () => {
    const now = Date.UTC(2025, 0, 1);
    expect(parseHttpDate('Monday, 01-Jan-75 00:00:00 GMT', now)).toBe(Date.UTC(2075, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(1976, 0, 1));
  });

  test('four-digit years below 100 are not read as 19xx', () => {
    const got = parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT', 0);
    expect(got).not.toBeNull();
    expect(new Date(got!).getUTCFullYear()).toBe(50);
  });

  test.prop([fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })], { numRuns: 300 })(
    'round-trips Date#toUTCString to the second',
    (date) => {
      expect(parseHttpDate(date.toUTCString(), 0)).toBe(Math.floor(date.getTime() / 1000) * 1000);
    },
  );
});
