// INJECTION: hostile user strings (target names, providers, keys, models, metadata keys and values,
// regex sources, query operands, config IDs) fed through check → plan → emit → new Function. The
// emitted source must parse, contain user text only inside string literals (or neutralised `//`
// comments), define no globals, have no side effects, and route exactly as the reference says.
import { describe, expect, test as plainTest } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { parseAst } from 'vitest/node';
import { checkConfig } from '../../compiler/config/index.ts';
import { emitRouterModule } from '../../compiler/config/emit.ts';
import type { PlanLeaf, PlanNode } from '../../compiler/config/route-plan.ts';
import { evaluate, type RoutingResult, type Scenario } from '../reference/evaluate.ts';
import { answerArb, drawsArb, propertyTimeoutMs, runs, type Raw } from './arbitraries.ts';
import { CompiledRouterHarness } from './harness.ts';

/** Brackets every user string. `§` cannot start or continue an identifier, and has no case. */
const MARK = '§7391§';

const NASTY = [
  '"', "'", '`', '\\', '\\"', '\\\\"', '*/', '/*', '//', '${', '${process.exit(1)}', '`${globalThis.pwned = 1}`',
  '\n', '\r', '\r\n', '\u2028', '\u2029', '\u0000', '\ud800', '\udfff', 'é', '😀', '\\u2028', '\t',
  '</script>', '<!--', '-->', '__proto__', 'constructor', 'prototype', 'toString',
  '"); process.exit(1); ("', "'); process.exit(1); ('", '"}); globalThis.pwned = 1; ({"', '}]; globalThis.pwned = 1; //',
  '\n globalThis.pwned = 1;\n', '\u2028globalThis.pwned = 1;', 'return 1;', 'rt.attempt', 'req.metadata',
];

const payload = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...NASTY), { minLength: 2, maxLength: 4 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);
const userString = payload.map((p) => `${MARK}${p}${MARK}`);
/** Object keys: the classic prototype names bare, or a marked hostile string (no `.`: query fields split on it). */
const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'),
  userString.filter((s) => !s.includes('.')),
);

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

const LEAF_PATHS = ['config.targets[0].targets[0]', 'config.targets[0].targets[1]', 'config.targets[1].targets[0]', 'config.targets[1].targets[1]', 'config.targets[2]'];

interface Injection {
  scenario: Scenario;
  configId: string;
}

const injectionArb: fc.Arbitrary<Injection> = fc
  .record({
    names: fc.uniqueArray(userString, { minLength: 3, maxLength: 3 }),
    inner: fc.uniqueArray(userString, { minLength: 2, maxLength: 2 }),
    configId: userString,
    s: fc.array(userString, { minLength: 40, maxLength: 40 }),
    k: fc.array(hostileKey, { minLength: 12, maxLength: 12 }),
    pick: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
    match: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    answers: fc.tuple(...LEAF_PATHS.map(() => fc.array(answerArb(false), { minLength: 1, maxLength: 2 }))),
    random: drawsArb,
  })
  .map(({ names, inner, configId, s, k, pick, match, answers, random }) => {
    let next = 0;
    const str = () => s[next++ % s.length];
    const leaf = (name: string, extra: Raw = {}): Raw => ({
      name,
      // A provider name must be known, but a provider slug (`@…`) may be any text: it carries the hostile string.
      provider: `@${str()}`,
      // A credential goes into a header, so only what a header can carry compiles (compiler/config/header-values.ts): its quotes, backslashes and `${` stay.
      api_key: str().replace(/[^\t\x20-\x7e\x80-\xff]/g, '_'),
      custom_host: `https://${str()}`,
      override_params: { model: str(), [k[next % k.length]]: str() },
      forward_headers: [str()],
      // Check ids must name a built-in check; its string parameters carry the hostile text.
      before_request_hooks: [{ id: str(), checks: [{ id: 'default.endsWith', parameters: { suffix: `${str()}x` } }] }],
      ...extra,
    });
    const bareObject = { [k[4]]: s[6], plain: s[7] };
    const config: Raw = {
      name: str(),
      override_params: { [k[0]]: str(), model: str() },
      strategy: {
        mode: 'conditional',
        conditions: [
          { query: { [`metadata.${k[1]}`]: s[1] }, then: names[pick[0]] },
          { query: { [`metadata.${k[2]}`]: { $regex: `^${escapeRegex(s[2])}$` } }, then: names[pick[1]] },
          { query: { $or: [{ [`params.${k[3]}`]: { $in: [s[3], s[4]] } }, { 'url.pathname': { $eq: s[5] } }] }, then: names[pick[2]] },
          { query: { 'params.obj': bareObject }, then: names[pick[3]] },
          { query: { [`metadata.${k[5]}`]: { $nin: [s[8]], $ne: s[9] }, [`params.${k[6]}.${k[7]}`]: { $gte: s[10] } }, then: names[pick[4]] },
        ],
        default: names[pick[5]],
      },
      targets: [
        { name: names[0], strategy: { mode: 'fallback', on_status_codes: [500, 502] }, targets: [leaf(inner[0]), leaf(inner[1])] },
        { name: names[1], strategy: { mode: 'loadbalance' }, targets: [leaf(inner[0], { weight: 1 }), leaf(inner[1], { weight: 2 })] },
        leaf(names[2]),
      ],
    };
    const request = {
      metadata: Object.fromEntries([
        [k[1], match[0] ? s[1] : s[11]],
        [k[2], match[1] ? s[2] : `${s[2]}x`],
        [k[5], match[4] ? s[8] : s[12]],
      ]),
      params: JSON.parse(
        JSON.stringify({ [k[3]]: match[2] ? s[4] : s[13], obj: match[3] ? bareObject : { plain: s[7] }, [k[6]]: { [k[7]]: s[14] } }),
      ) as unknown,
      pathname: match[5] ? s[5] : '/v1/chat/completions',
    };
    const upstream = Object.fromEntries(LEAF_PATHS.map((path, i) => [path, answers[i]]));
    // Configs arrive as parsed JSON: own keys only, `__proto__` included as a plain key.
    return { scenario: { config: JSON.parse(JSON.stringify(config)) as Raw, request, upstream, random }, configId };
  });

// ---- the source scan ----

/** Identifiers the emitter itself makes; anything else in the AST came from somewhere else. */
const EMITTER_IDENTIFIER =
  /^(?:rt|req|route|order|outcome|k|index|length|RegExp|credentials|path|name|provider|virtualKey|apiKey|customHost|providerOptions|promptId|weight|onStatusCodes|overrideParams|retry|requestTimeoutMs|breaker|cache|forwardHeaders|strictVendorCompliance|beforeRequestHooks|afterRequestHooks|inputGuardrails|outputGuardrails|kind|(?:leaf|leaves|route|weights|groups|fallback_codes|call|regex|const)_\d+|leaf|attempt|pickWeighted|fallbackOrder|fallsBack|discard|field|matches|pattern|eq|ne|gt|gte|lt|lte|inList|notInList|metadata|params|url)$/;

/** Every string a user could have contributed: values and keys of the config, their `.` segments and lower-cased forms. */
function userStrings(value: unknown, into = new Set<string>()): Set<string> {
  const add = (text: string) => {
    for (const form of [text, text.toLowerCase()]) {
      into.add(form);
      for (const segment of form.split('.')) into.add(segment);
    }
  };
  if (typeof value === 'string') add(value);
  else if (Array.isArray(value)) value.forEach((v) => userStrings(v, into));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      add(key);
      userStrings(v, into);
    }
  }
  return into;
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

interface ScanResult {
  strays: string[];
  literalMarks: number;
}

/** Parses the emitted function and reports every AST node that carries user text outside a whole string literal. */
function scan(source: string, allowed: Set<string>): ScanResult {
  // The native parser takes UTF-8: lone surrogates (only ever inside literals or comments) become U+FFFD first.
  const wellFormed = source.toWellFormed();
  const program = parseAst(`(function (rt) {\n${wellFormed}\n})`) as unknown;
  const strays: string[] = [];
  let literalMarks = 0;
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown>;
    switch (n.type) {
      case 'Identifier':
      case 'PrivateIdentifier':
        if (!EMITTER_IDENTIFIER.test(n.name as string)) strays.push(`identifier ${String(n.name)}`);
        break;
      case 'TemplateLiteral':
      case 'TaggedTemplateExpression':
        strays.push(n.type);
        break;
      case 'Literal':
        if (typeof n.value === 'string') {
          literalMarks += count(n.raw as string, MARK);
          if ((n.value as string).includes(MARK) && !allowed.has(n.value as string) && !allowed.has((n.value as string).toWellFormed())) {
            strays.push(`partial literal ${JSON.stringify(n.value)}`);
          }
        } else if ('regex' in n && n.regex) strays.push(`regex literal ${String(n.raw)}`);
        else if (String(n.raw).includes(MARK)) strays.push(`literal ${String(n.raw)}`);
        break;
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'type') walk(value);
  };
  walk(program);
  // Every mark is inside a string literal or on a `//` comment line (comment() strips line terminators).
  const commentMarks = wellFormed.split('\n').filter((line) => line.trimStart().startsWith('//')).reduce((sum, line) => sum + count(line, MARK), 0);
  if (count(wellFormed, MARK) !== literalMarks + commentMarks) strays.push(`${count(wellFormed, MARK) - literalMarks - commentMarks} marks outside literals and comments`);
  return { strays, literalMarks };
}

// ---- side effects ----

const WATCHED: [string, object][] = [
  ['globalThis', globalThis],
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];

function snapshot(): Record<string, string[]> {
  return Object.fromEntries(WATCHED.map(([name, object]) => [name, Reflect.ownKeys(object).map(String).sort()]));
}

/** Every object and array in a value has the ordinary prototype (no `__proto__` key turned into a prototype). */
function ordinaryPrototypes(value: unknown, at = 'leaf'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const expected = Array.isArray(value) ? Array.prototype : Object.prototype;
  const bad = Object.getPrototypeOf(value) === expected ? [] : [`${at} has a foreign prototype`];
  return [...bad, ...Object.entries(value).flatMap(([k, v]) => ordinaryPrototypes(v, `${at}[${JSON.stringify(k)}]`))];
}

function planLeaves(node: PlanNode): PlanLeaf[] {
  return node.kind === 'leaf' ? [node] : node.targets.flatMap(planLeaves);
}

function core(result: RoutingResult): RoutingResult {
  const { tried, status, leafPath, retries, error, waits, draws, overrideParams } = result;
  return { tried, status, leafPath, retries, error, waits, draws, overrideParams };
}

async function exercise({ scenario, configId }: Injection): Promise<void> {
  const before = snapshot();
  const exits: unknown[] = [];
  const realExit = process.exit;
  process.exit = ((code?: number) => {
    exits.push(code);
    throw new Error(`emitted code called process.exit(${code})`);
  }) as typeof process.exit;
  try {
    // Parses (new Function would throw otherwise) and builds the route function.
    const harness = new CompiledRouterHarness(scenario.config, configId);
    const allowed = userStrings([scenario.config, configId]);
    const { strays, literalMarks } = scan(harness.source, allowed);
    expect(strays).toEqual([]);
    expect(literalMarks).toBeGreaterThan(0);
    expect(harness.source.split('\n')[1]).toBe('"use strict";');

    // The literals rebuild the plan exactly: same own JSON, ordinary prototypes everywhere.
    // (A target no rule routes to is not emitted at all.)
    const planned = new Map(planLeaves(harness.plan.root).map((leaf) => [leaf.path, JSON.stringify(leaf)]));
    expect(harness.builtLeaves.length).toBeGreaterThan(0);
    for (const leaf of harness.builtLeaves) expect(JSON.stringify(leaf)).toBe(planned.get(leaf.path));
    expect(harness.builtLeaves.flatMap((leaf) => ordinaryPrototypes(leaf))).toEqual([]);

    const run = await harness.route(scenario.request, scenario.upstream, scenario.random);
    expect(core(run)).toEqual(evaluate(scenario));

    // A saved config's module parses as well, whatever the file name says.
    expect(() => parseAst(emitRouterModule(harness.plan, `${configId}.json`).toWellFormed())).not.toThrow();
  } finally {
    process.exit = realExit;
  }
  expect(exits).toEqual([]);
  expect(snapshot()).toEqual(before);
  expect((globalThis as Record<string, unknown>).pwned).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe('hostile strings through the compiler', () => {
  test.prop([injectionArb], { numRuns: runs(200) })('the emitted router parses, stays inert and routes as the reference says', exercise, propertyTimeoutMs());

  test.prop([injectionArb.filter(({ scenario }) => !JSON.stringify(scenario.config).includes('"__proto__"'))], { numRuns: runs(100) })(
    'the same without any `__proto__` key',
    exercise,
    propertyTimeoutMs(),
  );
});

describe('`__proto__` keys survive emission (one cause: JSON literals spliced as JS object literals)', () => {
  const base = { provider: 'vendor', api_key: 'k' };

  plainTest('override_params {"__proto__": …} stays an own key of the leaf the emitted code builds', () => {
    const config = JSON.parse('{"provider":"vendor","api_key":"k","override_params":{"__proto__":{"model":"evil"},"temperature":1}}');
    const harness = new CompiledRouterHarness(config);
    const built = harness.builtLeaves[0];
    expect(Object.getPrototypeOf(built.overrideParams)).toBe(Object.prototype);
    expect((built.overrideParams as Record<string, unknown>).model).toBeUndefined();
    expect(JSON.stringify(built.overrideParams)).toBe(JSON.stringify(harness.plan.root.overrideParams));
  });

  plainTest('a bare-object $eq operand with a "__proto__" key compares as written', async () => {
    const config = JSON.parse(`{
      "strategy": {"mode": "conditional", "conditions": [{"query": {"params.obj": {"__proto__": "x", "a": 1}}, "then": "hit"}], "default": "miss"},
      "targets": [${JSON.stringify({ ...base, name: 'hit' })}, ${JSON.stringify({ ...base, name: 'miss' })}]
    }`);
    for (const obj of ['{"__proto__": "x", "a": 1}', '{"a": 1}']) {
      const scenario: Scenario = { config, request: { params: JSON.parse(`{"obj": ${obj}}`) } };
      const compiled = await new CompiledRouterHarness(config).route(scenario.request);
      expect(compiled.leafPath, `params.obj = ${obj}`).toBe(evaluate(scenario).leafPath);
    }
  });

  plainTest('the scan sees through a classic breakout attempt in every position', () => {
    const evil = `${MARK}"); process.exit(1); ("${MARK}`;
    const config = {
      name: evil,
      strategy: { mode: 'conditional', conditions: [{ query: { [`metadata.${evil}`]: { $regex: escapeRegex(evil) } }, then: evil }], default: evil },
      targets: [{ ...base, name: evil, provider: `@${evil}`, override_params: { model: evil } }],
    };
    const harness = new CompiledRouterHarness(config, evil);
    expect(scan(harness.source, userStrings([config, evil])).strays).toEqual([]);
    // And the scan does flag user text spliced as code (here after the return, so the source still parses).
    const spliced = `${harness.source}void ("${MARK}", process.exit);\n`;
    expect(scan(spliced, userStrings([config, evil])).strays.sort()).toEqual(['identifier exit', 'identifier process', `partial literal "${MARK}"`]);
  });
});
