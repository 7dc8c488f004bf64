// A reference for the semantic rules (ARCHITECTURE §3 and §5: what JSON Schema cannot say), written
// from the handbook rather than from compiler/config/semantic.ts. For a structurally valid config it
// predicts every compile error as code + pointer; the checker must report exactly these.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RE2JS } from 're2js';
import { escapeToken } from './reference-validity.ts';

/** RFC 9110's hop-by-hop headers (and the proxy-era ones), with what the client's connection alone decides: host, content-length, expect. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect', 'accept-encoding']);

export type Expected = { code: string; pointer: string };

const MAX_DEPTH = 16;
const MAX_RETRIES = 5;
const COMPARISONS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex'];

const KNOWN_CHECKS = new Set(
  readdirSync(fileURLToPath(new URL('../../schema/checks/', import.meta.url)))
    .filter((f) => f.endsWith('-check.json'))
    .map((f) => `default.${f.slice(0, -'-check.json'.length)}`),
);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Text sent to the provider in a header: the credential and every string provider option (the manifest, read as data). */
const SENT_TEXT = new Set([
  'api_key',
  ...(JSON.parse(readFileSync(fileURLToPath(new URL('../../schema/providers.json', import.meta.url)), 'utf8')) as { options: Array<{ key: string; type: string }> }).options.filter((o) => o.type === 'string').map((o) => o.key),
]);
/** What node's HTTP client accepts in a header value: tab, printable ASCII, Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Provider names from the manifest, read here as data (not through the compiler's module). */
const KNOWN_PROVIDERS = new Set(
  (JSON.parse(readFileSync(fileURLToPath(new URL('../../schema/providers.json', import.meta.url)), 'utf8')) as { providers: Array<{ name: string; aliases?: string[] }> }).providers.flatMap((p) => [p.name, ...(p.aliases ?? [])]),
);

/** Steps the config's patterns compiled to so far, each counting 100 more: past 20,000 the rest are refused. */
let patternSteps = 0;

export function referenceSemanticErrors(config: unknown): Expected[] {
  // More than 1,000 targets in the whole tree: that alone is said, at the first target past them.
  const past = nthTarget(config, 1_001);
  if (past !== null) return [{ code: 'CFG_TOO_MANY_TARGETS', pointer: past }];
  const out: Expected[] = [];
  patternSteps = 0;
  node(config, '', 0, out);
  // Counted on a config that is otherwise valid: one request may call providers at most 200 times.
  if (out.length === 0 && calls(config, 0) > 200) out.push({ code: 'CFG_TOO_MANY_CALLS', pointer: '' });
  // And hook URLs at most 100 times: webhook, log and jwt checks; the root's input side once, each
  // target's output side (and an input side of its own) on every try.
  else if (out.length === 0 && isObject(config) && hookCalls(config) > 100) out.push({ code: 'CFG_TOO_MANY_CALLS', pointer: '' });
  return out;
}

const CALLING = ['default.webhook', 'default.log', 'default.jwt'];

/** Checks of a hook list and a guardrail list (inline guardrails only: none can be stored here) that call a URL. */
function calling(hooks: unknown, guardrails: unknown): number {
  let n = 0;
  for (const hook of Array.isArray(hooks) ? hooks : []) {
    for (const check of isObject(hook) && Array.isArray(hook.checks) ? hook.checks : []) if (isObject(check) && callsOut(check.id, check.parameters)) n++;
  }
  for (const guardrail of Array.isArray(guardrails) ? guardrails : []) if (isObject(guardrail)) n += Object.entries(guardrail).filter(([k, v]) => callsOut(k, v)).length;
  return n;
}

/** validUrls queries DNS for the hosts of its text with onlyDNS. */
function callsOut(id: unknown, parameters: unknown): boolean {
  return CALLING.includes(id as string) || (id === 'default.validUrls' && isObject(parameters) && parameters.onlyDNS === true);
}

function hookCalls(root: Record<string, unknown>): number {
  const rootInput = JSON.stringify([root.before_request_hooks ?? [], root.input_guardrails ?? []]);
  const walk = (node: unknown, inherited: { input: [unknown, unknown]; output: [unknown, unknown]; retries: number }): number => {
    if (!isObject(node)) return 0;
    const here = {
      input: [node.before_request_hooks ?? inherited.input[0], node.input_guardrails ?? inherited.input[1]] as [unknown, unknown],
      output: [node.after_request_hooks ?? inherited.output[0], node.output_guardrails ?? inherited.output[1]] as [unknown, unknown],
      retries: isObject(node.retry) && typeof node.retry.attempts === 'number' ? node.retry.attempts : inherited.retries,
    };
    const targets = Array.isArray(node.targets) ? node.targets : null;
    const mode = isObject(node.strategy) ? node.strategy.mode : undefined;
    if (targets === null || mode === undefined) {
      const own = JSON.stringify(here.input) === rootInput ? 0 : calling(...here.input);
      return (1 + here.retries) * (own + calling(...here.output));
    }
    const each = targets.map((target) => walk(target, here));
    if (mode === 'fallback') return each.reduce((a, b) => a + b, 0);
    if (mode === 'single') return each[0] ?? 0;
    return Math.max(0, ...each);
  };
  return calling(root.before_request_hooks, root.input_guardrails) + walk(root, { input: [[], []], output: [[], []], retries: 0 });
}

/** The pointer of the n-th target of the tree (depth first, in order), or null when it has fewer. */
function nthTarget(config: unknown, n: number): string | null {
  const pointers: string[] = [];
  const visit = (node: unknown, at: string): void => {
    if (!isObject(node) || !Array.isArray(node.targets)) return;
    node.targets.forEach((child, i) => {
      if (pointers.length >= n) return;
      pointers.push(`${at}/targets/${i}`);
      visit(child, `${at}/targets/${i}`);
    });
  };
  visit(config, '');
  return pointers.length >= n ? pointers[n - 1] : null;
}

/** Provider calls one request can make, at worst: a fallback tries every target, other modes one; a target 1 + its retries (its own, else inherited). */
function calls(config: unknown, inheritedRetries: number): number {
  if (!isObject(config)) return 0;
  const retries = isObject(config.retry) && typeof config.retry.attempts === 'number' ? config.retry.attempts : inheritedRetries;
  const targets = Array.isArray(config.targets) ? config.targets : null;
  const mode = isObject(config.strategy) ? config.strategy.mode : undefined;
  if (targets === null || mode === undefined) return 1 + retries;
  const each = targets.map((target) => calls(target, retries));
  if (mode === 'fallback') return each.reduce((a, b) => a + b, 0);
  if (mode === 'single') return each[0] ?? 0;
  return Math.max(0, ...each);
}

function node(config: unknown, at: string, depth: number, out: Expected[]): void {
  if (!isObject(config)) return;
  if (depth > MAX_DEPTH) {
    out.push({ code: 'CFG_TOO_DEEP', pointer: at });
    return;
  }
  // A provider name must be known (any case); `@slug` names a stored provider, resolved per request.
  const provider = config.provider;
  if (typeof provider === 'string' && provider !== '' && !provider.startsWith('@') && !KNOWN_PROVIDERS.has(provider.toLowerCase())) out.push({ code: 'CFG_UNKNOWN_PROVIDER', pointer: `${at}/provider` });
  for (const [key, value] of Object.entries(config)) {
    if (SENT_TEXT.has(key) && typeof value === 'string' && !HEADER_VALUE.test(value)) out.push({ code: 'CFG_INVALID_FORMAT', pointer: `${at}/${escapeToken(key)}` });
  }
  const retry = config.retry;
  if (isObject(retry)) {
    if (typeof retry.attempts === 'number' && retry.attempts > MAX_RETRIES) out.push({ code: 'CFG_TOO_MANY_RETRIES', pointer: `${at}/retry/attempts` });
    statusCodes(retry.on_status_codes, `${at}/retry/on_status_codes`, out);
  }
  statusCodes(config.on_status_codes, `${at}/on_status_codes`, out);
  // The gateway's own headers (x-gateway-*, any case), those of the client's connection and accept-encoding are never forwarded to a provider.
  if (Array.isArray(config.forward_headers)) {
    config.forward_headers.forEach((name, i) => {
      if (typeof name === 'string' && (/^x-gateway-/i.test(name) || CONNECTION_HEADERS.has(name.toLowerCase()))) out.push({ code: 'CFG_FORWARD_HEADER_NOT_ALLOWED', pointer: `${at}/forward_headers/${i}` });
    });
  }
  if (isObject(config.cb_config)) statusCodes(config.cb_config.failure_status_codes, `${at}/cb_config/failure_status_codes`, out);

  const targets = Array.isArray(config.targets) ? config.targets : null;
  if (targets !== null && !Object.hasOwn(config, 'strategy')) out.push({ code: 'CFG_TARGETS_WITHOUT_STRATEGY', pointer: `${at}/targets` });
  const strategy = isObject(config.strategy) ? config.strategy : null;
  if (strategy !== null && targets !== null) {
    statusCodes(strategy.on_status_codes, `${at}/strategy/on_status_codes`, out);
    if (targets.length === 0) out.push({ code: 'CFG_STRATEGY_WITHOUT_TARGETS', pointer: `${at}/targets` });
    else strategyRules(strategy, targets, at, out);
  }
  hooks(config, at, out);
  targets?.forEach((child, i) => node(child, `${at}/targets/${i}`, depth + 1, out));
}

/**
 * Hooks and guardrails (issue 12): a check id must be `default.<name>` for a file
 * schema/checks/<name>-check.json; a guardrail named by string does not exist (none can be stored
 * yet). Parameters of known checks are taken as valid: generated configs name no known check.
 */
function hooks(config: Record<string, unknown>, at: string, out: Expected[]): void {
  for (const field of ['before_request_hooks', 'after_request_hooks']) {
    const list = config[field];
    if (!Array.isArray(list)) continue;
    list.forEach((hook, h) => {
      if (!isObject(hook) || !Array.isArray(hook.checks)) return;
      hook.checks.forEach((check, c) => {
        if (isObject(check) && typeof check.id === 'string' && !KNOWN_CHECKS.has(check.id)) out.push({ code: 'CFG_UNKNOWN_CHECK', pointer: `${at}/${field}/${h}/checks/${c}/id` });
      });
    });
  }
  for (const field of ['input_guardrails', 'output_guardrails']) {
    const list = config[field];
    if (!Array.isArray(list)) continue;
    list.forEach((guardrail, g) => {
      if (typeof guardrail === 'string') out.push({ code: 'CFG_UNKNOWN_GUARDRAIL', pointer: `${at}/${field}/${g}` });
      if (!isObject(guardrail)) return;
      const onFail = guardrail.on_fail;
      const onSuccess = guardrail.on_success;
      const denies = guardrail.deny === true || (isObject(onFail) && onFail.deny === true) || (isObject(onSuccess) && onSuccess.deny === true);
      if (guardrail.async === true && denies) out.push({ code: 'CFG_ASYNC_GUARDRAIL_DENIES', pointer: `${at}/${field}/${g}/async` });
      for (const key of Object.keys(guardrail)) {
        if (!['id', 'deny', 'async', 'on_fail', 'on_success'].includes(key) && !KNOWN_CHECKS.has(key)) out.push({ code: 'CFG_UNKNOWN_CHECK', pointer: `${at}/${field}/${g}/${escapeToken(key)}` });
      }
    });
  }
  // Ids within a phase: every later entry whose id an earlier one of the phase had (a string is its own id).
  for (const fields of [['before_request_hooks', 'input_guardrails'], ['after_request_hooks', 'output_guardrails']]) {
    const ids: string[] = [];
    for (const field of fields) {
      const list = config[field];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        const id = typeof entry === 'string' ? entry : isObject(entry) && typeof entry.id === 'string' ? entry.id : null;
        if (id === null) return;
        if (ids.includes(id)) out.push({ code: 'CFG_DUPLICATE_HOOK_ID', pointer: typeof entry === 'string' ? `${at}/${field}/${i}` : `${at}/${field}/${i}/id` });
        ids.push(id);
      });
    }
  }
}

function strategyRules(strategy: Record<string, unknown>, targets: unknown[], at: string, out: Expected[]): void {
  const names = new Set<string>();
  targets.forEach((target, i) => {
    if (!isObject(target) || typeof target.name !== 'string') return;
    if (names.has(target.name)) out.push({ code: 'CFG_DUPLICATE_TARGET_NAME', pointer: `${at}/targets/${i}/name` });
    names.add(target.name);
  });
  if (strategy.mode === 'conditional') {
    const nameRef = (value: unknown, pointer: string) => {
      if (typeof value === 'string' && !names.has(value)) out.push({ code: 'CFG_UNKNOWN_TARGET_NAME', pointer });
    };
    if (Array.isArray(strategy.conditions)) {
      strategy.conditions.forEach((condition, i) => {
        if (!isObject(condition)) return;
        const pointer = `${at}/strategy/conditions/${i}`;
        if (isObject(condition.query)) query(condition.query, `${pointer}/query`, out);
        nameRef(condition.then, `${pointer}/then`);
      });
    }
    nameRef(strategy.default, `${at}/strategy/default`);
  }
  if (strategy.mode === 'loadbalance') {
    const weight = (t: unknown) => (isObject(t) && typeof t.weight === 'number' ? t.weight : 1);
    if (targets.every((t) => weight(t) === 0)) out.push({ code: 'CFG_ALL_WEIGHTS_ZERO', pointer: `${at}/targets` });
  }
}

function statusCodes(codes: unknown, at: string, out: Expected[]): void {
  if (!Array.isArray(codes)) return;
  codes.forEach((code, i) => {
    if (typeof code === 'number' && !(Number.isInteger(code) && code >= 100 && code <= 599)) out.push({ code: 'CFG_INVALID_STATUS_CODE', pointer: `${at}/${i}` });
  });
}

/** The query grammar of ARCHITECTURE §5: `$and`/`$or` lists, fields with a bare value or operators. */
function query(q: unknown, at: string, out: Expected[]): void {
  if (!isObject(q)) {
    out.push({ code: 'CFG_WRONG_TYPE', pointer: at });
    return;
  }
  for (const [key, value] of Object.entries(q)) {
    const here = `${at}/${escapeToken(key)}`;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) out.push({ code: 'CFG_INVALID_OPERAND', pointer: here });
      else value.forEach((item, i) => query(item, `${here}/${i}`, out));
    } else if (key.startsWith('$')) {
      out.push({ code: 'CFG_UNKNOWN_OPERATOR', pointer: here });
    } else if (!isField(key)) {
      out.push({ code: 'CFG_INVALID_QUERY_FIELD', pointer: here });
    } else if (isObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      for (const [operator, operand] of Object.entries(value)) operatorRules(operator, operand, `${here}/${escapeToken(operator)}`, out);
    }
  }
}

function isField(key: string): boolean {
  if (key === 'url.pathname') return true;
  const match = /^(metadata|params)\.(.+)$/s.exec(key);
  // DECISION: a params segment like `messages[0]` (an array item, JavaScript-style) is no key a body has.
  return match !== null && match[2].split('.').every((segment) => segment !== '' && !(match[1] === 'params' && /^[^[\]]+(\[\d+\])+$/.test(segment)));
}

function operatorRules(operator: string, operand: unknown, at: string, out: Expected[]): void {
  if (!COMPARISONS.includes(operator)) out.push({ code: 'CFG_UNKNOWN_OPERATOR', pointer: at });
  else if ((operator === '$in' || operator === '$nin') && !Array.isArray(operand)) out.push({ code: 'CFG_INVALID_OPERAND', pointer: at });
  else if (['$gt', '$gte', '$lt', '$lte'].includes(operator) && typeof operand !== 'number' && typeof operand !== 'string') out.push({ code: 'CFG_INVALID_OPERAND', pointer: at });
  else if (operator === '$regex') {
    if (typeof operand !== 'string') out.push({ code: 'CFG_INVALID_OPERAND', pointer: at });
    else if (patternSteps >= 20_000) out.push({ code: 'CFG_REGEX_UNSUPPORTED', pointer: at });
    else if (!compiles(operand)) out.push({ code: 'CFG_INVALID_REGEX', pointer: at });
    else if (!linear(operand)) out.push({ code: 'CFG_REGEX_UNSUPPORTED', pointer: at });
    if (typeof operand === 'string') patternSteps += 100 + programSize(operand);
  }
}

/**
 * Patterns run on a linear-time engine (RE2): valid JavaScript that needs backtracking is refused,
 * and so is a pattern whose compiled program has more than 1,100 instructions.
 */
function linear(pattern: string): boolean {
  const size = programSize(pattern);
  return size > 0 && size <= 1_100;
}

/** Instructions of the pattern's RE2 program; 0 when RE2 cannot compile it. */
function programSize(pattern: string): number {
  try {
    const compiled = RE2JS.compile(pattern) as unknown as { re2Input: { prog: { inst: unknown[] } } };
    return compiled.re2Input.prog.inst.length;
  } catch {
    return 0;
  }
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
