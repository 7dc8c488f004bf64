// User patterns (conditions' `$regex`, and any check that matches text) run on a linear-time engine
// (re2js: RE2's semantics), so no pattern and no input can stall the event loop: `^(a+)+$` against
// 32 × "a" + "!" takes microseconds instead of seconds. Patterns that need backtracking (back-
// references, lookahead, lookbehind) are refused when the config is compiled.
//
// Linear in the text, times the size of the compiled pattern: the engine follows each of its steps
// (instructions) for every character when its state cache cannot hold the pattern's states. Counted
// repetition multiplies the size (`[a-z]{1000}` is a thousand steps), and three such groups held the
// event loop 7.5 s on 50 KB of letters. So a pattern is refused past MAX_PATTERN_STEPS, and one match
// never looks at more than MAX_MATCH_WORK characters × steps (PatternWorkError).
import { RE2JS } from 're2js';

/** A compiled pattern and its size in steps. */
export interface LinearPattern {
  readonly regex: RE2JS;
  readonly steps: number;
}

/** The most steps a compiled pattern may have: a counted repetition of a class up to {1000} fits. */
export const MAX_PATTERN_STEPS = 1_100;
/**
 * The most characters × steps one match may cover. Where the engine's state cache gives out (text
 * made to defeat it) a character costs ~30 ns per step when testing and ~60 when replacing, so this
 * holds one match to ~0.6 s (test) or ~1.2 s (replace) at worst; on ordinary text the cache holds
 * and the same match takes milliseconds. A 20-step pattern judges texts of up to a million characters.
 */
export const MAX_MATCH_WORK = 20_000_000;
/**
 * The most characters × steps one request's `$regex` conditions may cover together (~1.2 s at
 * worst): a config may test one long value with any number of conditions. Guardrail checks have a
 * time budget of their own per request (runtime/pipeline/guardrails/check-budget.ts).
 */
export const MAX_REQUEST_PATTERN_WORK = 2 * MAX_MATCH_WORK;

/**
 * The most steps one config's patterns may compile to together, each counting PATTERN_OVERHEAD_STEPS
 * besides its own: at most 200 patterns, or 18 of the largest. Compiling costs ~0.1 µs a step and
 * tens of µs a pattern, and an inline config is checked on the serving thread: a 60 KB header of a
 * thousand `{1000}` patterns held it for ~0.3 s (1.4 s on a slow VM), each new config again.
 */
export const MAX_CONFIG_PATTERN_STEPS = 20_000;
/** What a pattern counts against MAX_CONFIG_PATTERN_STEPS besides its steps: compiling even `a` costs tens of µs. */
export const PATTERN_OVERHEAD_STEPS = 100;

/**
 * `unsupported`: a valid JavaScript pattern the engine does not run (the message says why). `steps`:
 * the compiled size, 0 when the pattern did not compile.
 */
export type PatternCheck = { ok: true; steps: number } | { ok: false; unsupported: boolean; message: string; steps: number };

/** checkPattern, or a checker that also holds a config's patterns to a bound (patternBudget). */
export type PatternChecker = (pattern: string) => PatternCheck;

/** A text too long to match against a pattern within MAX_MATCH_WORK. */
export class PatternWorkError extends Error {
  override readonly name = 'PatternWorkError';
}

/** Whether `pattern` compiles on the linear engine; `unsupported` when it is a valid JavaScript pattern the engine cannot run. */
export function checkPattern(pattern: string): PatternCheck {
  let compiled: LinearPattern;
  try {
    compiled = compilePattern(pattern);
  } catch (error) {
    let validJs = true;
    try {
      new RegExp(pattern);
    } catch {
      validJs = false;
    }
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    return { ok: false, unsupported: validJs, message: validJs ? `it needs backtracking (${reason}): the engine has no back-references or lookaround` : reason, steps: 0 };
  }
  const steps = compiled.steps;
  if (opensClassWithBracket(pattern)) {
    return { ok: false, unsupported: true, message: 'a character class that begins with "]" ("[]" or "[^]") matches nothing or any character in JavaScript, but holds a literal "]" on the linear engine: write "\\]" for the character, "[\\s\\S]" for any character', steps };
  }
  if (steps > MAX_PATTERN_STEPS) {
    return { ok: false, unsupported: true, message: `it compiles to ${steps} steps, more than ${MAX_PATTERN_STEPS}, and a match may follow every step for every character: counted repetition ({n}) multiplies a pattern's size, so write fewer or smaller counts`, steps };
  }
  return { ok: true, steps };
}

/**
 * A checker for the patterns of one config: checkPattern, until the patterns checked so far have
 * compiled to MAX_CONFIG_PATTERN_STEPS; the patterns after that are not compiled and fail.
 */
export function patternBudget(): PatternChecker {
  let spent = 0;
  return (pattern) => {
    if (spent >= MAX_CONFIG_PATTERN_STEPS) {
      return { ok: false, unsupported: true, message: `the config's patterns before it already compile to ${spent} steps, and one config's patterns may compile to at most ${MAX_CONFIG_PATTERN_STEPS} together (each counting ${PATTERN_OVERHEAD_STEPS} besides its own steps): use fewer or smaller patterns, or one pattern with alternatives (a|b) in place of many`, steps: 0 };
    }
    const check = checkPattern(pattern);
    spent += PATTERN_OVERHEAD_STEPS + check.steps;
    return check;
  };
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

/** The compiled program's length; re2js is pinned (package.json), and test/router/query.test.ts checks it is read. */
function stepsOf(regex: RE2JS): number {
  const steps = (regex as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst?.length;
  if (typeof steps !== 'number') throw new Error('re2js does not expose the size of a compiled pattern (re2Input.prog.inst): the version in package.json must be one that does');
  return steps;
}

/**
 * Compiled patterns by their text, the most recent up to CACHED_STEPS (each counting
 * PATTERN_OVERHEAD_STEPS more; a compiled step holds ~80 bytes, a pattern ~6 KB): a config's
 * patterns are compiled when it is checked, planned and built, and a stored guardrail's on every
 * target that names it (a thousand targets could name one of 18 large patterns). Matches run
 * synchronously, and what one leaves in the pattern's state cache changes how fast a later one
 * runs, never what it answers: one compiled pattern serves every router that has its text.
 */
const cached = new Map<string, LinearPattern>();
const CACHED_STEPS = 50_000;
let cachedSteps = 0;

/** Compiles a pattern (throws when the engine cannot); `checkPattern` says whether it may be used. */
export function compilePattern(pattern: string): LinearPattern {
  const hit = cached.get(pattern);
  if (hit !== undefined) return hit;
  const regex = RE2JS.compile(pattern);
  const compiled = { regex, steps: stepsOf(regex) };
  cached.set(pattern, compiled);
  cachedSteps += PATTERN_OVERHEAD_STEPS + compiled.steps;
  for (const [oldest, { steps }] of cached) {
    if (cachedSteps <= CACHED_STEPS) break;
    cached.delete(oldest);
    cachedSteps -= PATTERN_OVERHEAD_STEPS + steps;
  }
  return compiled;
}

function bound(pattern: LinearPattern, text: string): void {
  if (text.length * pattern.steps <= MAX_MATCH_WORK) return;
  throw new PatternWorkError(`the text (${text.length} characters) is too long to match against the pattern /${pattern.regex.pattern()}/ (${pattern.steps} steps): at most ${Math.floor(MAX_MATCH_WORK / pattern.steps)} characters for it`);
}

/** Whether the pattern matches anywhere in `text` (RegExp.prototype.test's meaning); PatternWorkError past MAX_MATCH_WORK. */
export function testPattern(pattern: LinearPattern, text: string): boolean {
  bound(pattern, text);
  // `test` runs on re2js's DFA without a Matcher: about 4× faster than matcher(text).find().
  return pattern.regex.test(text);
}

/** `text` with every match replaced by what `replacement` returns (taken literally); PatternWorkError past MAX_MATCH_WORK. */
export function replacePattern(pattern: LinearPattern, text: string, replacement: () => string): string {
  bound(pattern, text);
  return pattern.regex.matcher(text).replaceAll(replacement);
}
