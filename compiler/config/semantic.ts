// The rules JSON Schema cannot say (ARCHITECTURE §5), checked over the whole target tree. Runs even
// when the schema check failed, so one run reports every problem; hence every read is defensive.
import { neverForwardedBecause } from './forwarding.ts';
import { MAX_RETRY_ATTEMPTS, MAX_TARGET_DEPTH, type ConfigError } from './errors.ts';
import { isPlainObject, parseQuery } from './query.ts';
import { didYouMean } from './suggest.ts';
import { checkPattern, type PatternChecker } from './linear-regex.ts';

/** `patterns` checks each `$regex` (checkConfigErrors passes the config's patternBudget). */
export function checkSemantics(config: unknown, patterns: PatternChecker = checkPattern): ConfigError[] {
  const errors: ConfigError[] = [];
  checkNode(config, '', 0, errors, patterns);
  return errors;
}

function checkNode(node: unknown, at: string, depth: number, errors: ConfigError[], patterns: PatternChecker): void {
  if (!isPlainObject(node)) return;
  if (depth > MAX_TARGET_DEPTH) {
    errors.push({ code: 'CFG_TOO_DEEP', pointer: at, message: `Targets are nested ${depth} levels deep; at most ${MAX_TARGET_DEPTH} are allowed.` });
    return;
  }
  checkRetry(node.retry, at, errors);
  checkForwardHeaders(node.forward_headers, `${at}/forward_headers`, errors);
  checkStatusCodes(node.on_status_codes, `${at}/on_status_codes`, errors);
  if (isPlainObject(node.cb_config)) checkStatusCodes(node.cb_config.failure_status_codes, `${at}/cb_config/failure_status_codes`, errors);

  const targets = Array.isArray(node.targets) ? node.targets : null;
  const strategy = isPlainObject(node.strategy) ? node.strategy : null;
  if (targets && !('strategy' in node)) {
    errors.push({
      code: 'CFG_TARGETS_WITHOUT_STRATEGY',
      pointer: `${at}/targets`,
      message: `"targets" is set${at ? ` at ${at}` : ''} but there is no "strategy" to choose among them.`,
      hint: 'add "strategy": {"mode": "fallback"} (or loadbalance, conditional, single)',
    });
  }
  if (strategy && targets) checkStrategy(strategy, targets, at, errors, patterns);
  targets?.forEach((child, index) => checkNode(child, `${at}/targets/${index}`, depth + 1, errors, patterns));
}

function checkStrategy(strategy: Record<string, unknown>, targets: unknown[], at: string, errors: ConfigError[], patterns: PatternChecker): void {
  checkStatusCodes(strategy.on_status_codes, `${at}/strategy/on_status_codes`, errors);
  if (targets.length === 0) {
    errors.push({ code: 'CFG_STRATEGY_WITHOUT_TARGETS', pointer: `${at}/targets`, message: 'The strategy has an empty "targets" array.', hint: 'add at least one target' });
    return;
  }
  const names = new Map<string, number>();
  targets.forEach((target, index) => {
    const name = isPlainObject(target) && typeof target.name === 'string' ? target.name : null;
    if (name === null) return;
    if (names.has(name)) {
      errors.push({
        code: 'CFG_DUPLICATE_TARGET_NAME',
        pointer: `${at}/targets/${index}/name`,
        message: `Target name "${name}" is already used by ${at}/targets/${names.get(name)}.`,
        hint: 'give each target under one strategy its own name',
      });
    } else names.set(name, index);
  });

  if (strategy.mode === 'conditional') {
    const known = [...names.keys()];
    const checkName = (value: unknown, pointer: string) => {
      if (typeof value === 'string' && !names.has(value)) {
        errors.push({
          code: 'CFG_UNKNOWN_TARGET_NAME',
          pointer,
          message: `No target of this strategy is named "${value}".`,
          hint: didYouMean(value, known) ?? (known.length ? `target names here: ${known.join(', ')}` : 'give the targets a "name"'),
        });
      }
    };
    if (Array.isArray(strategy.conditions)) {
      strategy.conditions.forEach((condition, index) => {
        if (!isPlainObject(condition)) return;
        const pointer = `${at}/strategy/conditions/${index}`;
        if (isPlainObject(condition.query)) parseQuery(condition.query, `${pointer}/query`, errors, patterns);
        checkName(condition.then, `${pointer}/then`);
      });
    }
    checkName(strategy.default, `${at}/strategy/default`);
  }

  if (strategy.mode === 'loadbalance') {
    const weights = targets.map((t) => (isPlainObject(t) && typeof t.weight === 'number' ? t.weight : 1));
    if (weights.every((w) => w === 0)) {
      errors.push({ code: 'CFG_ALL_WEIGHTS_ZERO', pointer: `${at}/targets`, message: 'Every target has weight 0, so the loadbalancer could never pick one.', hint: 'give at least one target a positive weight (the default is 1)' });
    }
  }
}

/** The gateway's own headers (its key, its options, cloud credentials sent as x-gateway-*) never go to a provider. */
function checkForwardHeaders(names: unknown, at: string, errors: ConfigError[]): void {
  if (!Array.isArray(names)) return;
  names.forEach((name, index) => {
    const never = typeof name === 'string' ? neverForwardedBecause(name) : null;
    if (never !== null) {
      errors.push({ code: 'CFG_FORWARD_HEADER_NOT_ALLOWED', pointer: `${at}/${index}`, message: `${JSON.stringify(name)} is never forwarded: ${never}.`, hint: 'remove it; provider settings go in the target\'s own fields' });
    }
  });
}

function checkRetry(retry: unknown, at: string, errors: ConfigError[]): void {
  if (!isPlainObject(retry)) return;
  if (typeof retry.attempts === 'number' && retry.attempts > MAX_RETRY_ATTEMPTS) {
    errors.push({
      code: 'CFG_TOO_MANY_RETRIES',
      pointer: `${at}/retry/attempts`,
      message: `retry.attempts is ${retry.attempts}; at most ${MAX_RETRY_ATTEMPTS} retries are allowed.`,
      hint: 'more retries mostly add latency; combine fewer retries with a fallback target',
    });
  }
  checkStatusCodes(retry.on_status_codes, `${at}/retry/on_status_codes`, errors);
}

function checkStatusCodes(codes: unknown, at: string, errors: ConfigError[]): void {
  if (!Array.isArray(codes)) return;
  codes.forEach((code, index) => {
    if (typeof code === 'number' && !(Number.isInteger(code) && code >= 100 && code <= 599)) {
      errors.push({ code: 'CFG_INVALID_STATUS_CODE', pointer: `${at}/${index}`, message: `${code} is not an HTTP status code (100–599).` });
    }
  });
}
