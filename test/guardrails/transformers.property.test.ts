// The two transformers: regexReplace replaces every match and counts them; piiRedact leaves no
// generated e-mail, phone, Luhn-valid card number or mod-97-valid IBAN behind, leaves text without
// any untouched, and keeps card-like numbers that fail the Luhn check.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { transformer } from './check-input.ts';

const RUNS = { numRuns: 150 };
const filler = fc.array(fc.constantFrom('hello', 'world', 'the', 'report', 'is', 'due', 'Monday', ',', '.', 'ok'), { maxLength: 6 }).map((w) => w.join(' '));

/** A number of `length` digits that passes the Luhn check. */
function luhnNumber(prefix: string, body: number[], length: number): string {
  const digits = (prefix + body.join('')).slice(0, length - 1).padEnd(length - 1, '0').split('').map(Number);
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits[digits.length - 1 - i];
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return [...digits, (10 - (sum % 10)) % 10].join('');
}

/** An IBAN with correct check digits for a country and account. */
function iban(country: string, account: string): string {
  const numeric = (account + country + '00').split('').map((c) => (c >= 'A' && c <= 'Z' ? String(c.charCodeAt(0) - 55) : c)).join('');
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${account}`;
}

const email = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9._]{0,10}[a-z0-9]$/), fc.stringMatching(/^[a-z]{2,10}$/), fc.constantFrom('com', 'org', 'example', 'co.uk')).map(([user, domain, tld]) => `${user}@${domain}.${tld}`);
const card = fc.tuple(fc.constantFrom('4', '51', '37', '6011'), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }), fc.constantFrom(15, 16), fc.boolean())
  .map(([prefix, body, length, spaced]) => {
    const n = luhnNumber(prefix, body, length);
    return spaced ? n.replace(/(\d{4})(?=\d)/g, '$1 ') : n;
  });
const phone = fc.tuple(fc.constantFrom('+1 ', '+44 ', '+49 ', ''), fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), fc.integer({ min: 1000, max: 9999 }), fc.constantFrom('-', ' ', '.'))
  .map(([cc, a, b, c, sep]) => `${cc}${a}${sep}${b}${sep}${c}`);
const ibanValue = fc.tuple(fc.constantFrom('DE', 'GB', 'FR', 'NL'), fc.stringMatching(/^[0-9]{16,20}$/)).map(([country, account]) => iban(country, account));

describe('transformers', () => {
  test.prop([fc.array(fc.oneof(filler, email, card, phone, ibanValue), { minLength: 1, maxLength: 8 })], RUNS)('piiRedact leaves no generated PII behind and counts each find', (parts) => {
    const text = parts.join(' ; ');
    const pii = parts.filter((p, i) => i >= 0 && /[@\d]/.test(p));
    const { text: out, found } = transformer('default.piiRedact', {}).transform(text);
    for (const value of pii) expect(out).not.toContain(value);
    expect(found).toBe(pii.length);
  });

  test.prop([filler], RUNS)('piiRedact leaves text without PII as it was', (text) => {
    expect(transformer('default.piiRedact', {}).transform(text)).toEqual({ text, found: 0 });
  });

  test.prop([card, filler], RUNS)('piiRedact keeps a card-like number whose Luhn check fails, and redacts only the listed categories', (number, words) => {
    const broken = number.slice(0, -1) + String((Number(number.at(-1)) + 1) % 10);
    expect(transformer('default.piiRedact', { categories: ['credit_card'] }).transform(`${words} ${broken}`).text).toContain(broken);
    expect(transformer('default.piiRedact', { categories: ['email'] }).transform(`${words} ${number}`).text).toContain(number);
    expect(transformer('default.piiRedact', { categories: ['credit_card'], redactText: '***' }).transform(`${words} ${number}`).text).toBe(`${words} ***`);
  });

  test.prop([fc.array(fc.constantFrom('ab', 'x', 'AB', ' ', 'abab', '$1'), { maxLength: 10 }).map((p) => p.join(''))], RUNS)('regexReplace replaces every match literally and counts them', (text) => {
    const { text: out, found } = transformer('default.regexReplace', { rule: 'ab', redactText: '[$1]' }).transform(text);
    expect(found).toBe(text.split('ab').length - 1);
    expect(out).toBe(text.split('ab').join('[$1]'));
  });

  test.prop([fc.boolean()], { numRuns: 4 })('failOnDetection is passed on as the transformer says', (fail) => {
    expect(transformer('default.regexReplace', { rule: 'x', failOnDetection: fail }).failOnDetection).toBe(fail);
    expect(transformer('default.piiRedact', { failOnDetection: fail }).failOnDetection).toBe(fail);
  });
});
