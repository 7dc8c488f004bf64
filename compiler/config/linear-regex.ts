// User patterns (conditions' `$regex`, and any check that matches text) run on a linear-time engine
// (re2js: RE2's semantics), so no pattern and no input can stall the event loop: `^(a+)+$` against
// 32 × "a" + "!" takes microseconds instead of seconds. Patterns that need backtracking (back-
// references, lookahead, lookbehind) are refused when the config is compiled.
import { RE2JS } from 're2js';

export type LinearPattern = RE2JS;

export type PatternCheck = { ok: true } | { ok: false; unsupported: boolean; message: string };

/** Whether `pattern` compiles on the linear engine; `unsupported` when it is a valid JavaScript pattern the engine cannot run. */
export function checkPattern(pattern: string): PatternCheck {
  try {
    RE2JS.compile(pattern);
    if (opensClassWithBracket(pattern)) {
      return { ok: false, unsupported: true, message: 'a character class that begins with "]" ("[]" or "[^]") matches nothing or any character in JavaScript, but holds a literal "]" on the linear engine: write "\\]" for the character, "[\\s\\S]" for any character' };
    }
    return { ok: true };
  } catch (error) {
    let validJs = true;
    try {
      new RegExp(pattern);
    } catch {
      validJs = false;
    }
    return { ok: false, unsupported: validJs, message: (error as Error).message.replace(/^error parsing regexp: /, '') };
  }
}

/**
 * Whether an unescaped `[` opens a class with `]` or `^]`: the one place the two engines read the
 * same text differently and both accept it (found by test/router/query.test.ts's comparison).
 */
function opensClassWithBracket(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c !== '[') continue;
    const first = pattern[i + 1] === '^' ? i + 2 : i + 1;
    if (pattern[first] === ']') return true;
    inClass = true;
    i = first - 1;
  }
  return false;
}

/** Compiles a pattern that `checkPattern` accepted. */
export function compilePattern(pattern: string): LinearPattern {
  return RE2JS.compile(pattern);
}

/** Whether the pattern matches anywhere in `text` (RegExp.prototype.test's meaning), in time linear in the text. */
export function testPattern(pattern: LinearPattern, text: string): boolean {
  // `test` runs on re2js's DFA without a Matcher: about 4× faster than matcher(text).find().
  return pattern.test(text);
}
