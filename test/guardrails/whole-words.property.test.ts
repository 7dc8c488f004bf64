// default.contains finds its words in one pass (Aho-Corasick, whole-words.ts). Property: the words it
// finds are exactly those the plain definition finds (an occurrence with no letter, digit or
// underscore right before or after it), over texts and lists made to overlap.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { WholeWords, WholeWordsTooCostly } from '../../runtime/pipeline/guardrails/checks/whole-words.ts';

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** The definition, one word at a time. */
function holdsWhole(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (!WORD_CHAR.test(text[at - 1] ?? '') && !WORD_CHAR.test(text[at + word.length] ?? '')) return true;
  }
  return false;
}

// Few distinct units, so words overlap, nest and repeat: letters, a digit, space, punctuation, an
// accented letter, half of a surrogate pair.
const unit = fc.constantFrom('a', 'b', 'ab', ' ', '.', '-', '_', '1', 'é', '\ud83d', 'c++');
const text = fc.array(unit, { maxLength: 40 }).map((parts) => parts.join(''));
const word = fc.array(unit, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''));

describe('whole words', () => {
  test.prop([fc.array(word, { minLength: 1, maxLength: 8 }), text], { numRuns: 500 })('finds exactly the words the definition finds', (words, t) => {
    const expected = new Set(words.filter((w) => holdsWhole(t, w)));
    expect(new WholeWords(words).found(t)).toEqual(expected);
  });

  test.prop([fc.array(word, { minLength: 1, maxLength: 8 }), text, fc.integer({ min: 1, max: 3 })], { numRuns: 300 })('stops at `enough` words, each one the definition finds', (words, t, enough) => {
    const found = new WholeWords(words).found(t, enough);
    const all = new Set(words.filter((w) => holdsWhole(t, w)));
    expect(found.size).toBe(Math.min(enough, all.size));
    for (const w of found) expect(all).toContain(w);
  });

  it('refuses a list that makes many words end, none whole, at every place of the text, rather than take time per word', () => {
    const words = Array.from({ length: 200 }, (_, i) => ` a${' a'.repeat(i)}`);
    const started = performance.now();
    expect(() => new WholeWords(words).found('a '.repeat(50_000))).toThrow(WholeWordsTooCostly);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('looks a thousand words up in one pass over a long text', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}x`);
    const found = new WholeWords(words).found(`${'the quick brown fox jumps over the lazy dog '.repeat(50_000)} and word999x.`);
    expect(found).toEqual(new Set(['word999x']));
  });
});
