// default.piiRedact, a transformer: e-mail addresses, phone numbers, card numbers (only those that pass
// the Luhn check) and IBANs (only those whose mod-97 check holds) are replaced in every text of the
// request or answer. Card numbers and IBANs go first, so their digits are never taken for a phone.
import type { CheckDefinition } from '../check.ts';

export type PiiCategory = 'email' | 'phone' | 'credit_card' | 'iban';

const DEFAULT_TEXT: Readonly<Record<PiiCategory, string>> = { email: '[EMAIL]', phone: '[PHONE]', credit_card: '[CREDIT_CARD]', iban: '[IBAN]' };

// Every pattern is free of nested unbounded repetition: linear on any text.
const PATTERNS: ReadonlyArray<{ category: PiiCategory; pattern: RegExp; valid?: (match: string) => boolean }> = [
  { category: 'credit_card', pattern: /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g, valid: luhnValid },
  { category: 'iban', pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g, valid: ibanValid },
  { category: 'email', pattern: /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![\w-])/g },
  // +CC, an optional (area), then 2–4 digit groups: at least 7 digits in all.
  { category: 'phone', pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w])/g, valid: (m) => digitCount(m) >= 7 && digitCount(m) <= 15 },
];

export function luhnValid(text: string): boolean {
  const digits = text.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function ibanValid(text: string): boolean {
  const iban = text.replace(/ /g, '');
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const c of moved) {
    const value = c >= 'A' && c <= 'Z' ? c.charCodeAt(0) - 55 : c.charCodeAt(0) - 48;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

function digitCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) n++;
  return n;
}

export const piiRedact: CheckDefinition = {
  kind: 'transform',
  prepare(parameters) {
    const categories = new Set<PiiCategory>(Array.isArray(parameters.categories) ? (parameters.categories as PiiCategory[]) : ['email', 'phone', 'credit_card', 'iban']);
    const patterns = PATTERNS.filter((p) => categories.has(p.category));
    const redactText = typeof parameters.redactText === 'string' ? parameters.redactText : null;
    return {
      failOnDetection: parameters.failOnDetection === true,
      transform(text) {
        let found = 0;
        let out = text;
        for (const { category, pattern, valid } of patterns) {
          out = out.replace(pattern, (match) => {
            if (valid !== undefined && !valid(match)) return match;
            found++;
            return redactText ?? DEFAULT_TEXT[category];
          });
        }
        return { text: out, found };
      },
    };
  },
};
