// Walks a config the way SPEC §2.1 nests it, naming each closed object (where unknown keys are
// rejected) and each key a config cannot lose without an error, with the error that loss must cause.
import { CLOSED_OBJECT_KEYS, KEY_SETS, escapeToken, type ClosedObjectKind } from './reference-validity.ts';

type Obj = Record<string, unknown>;
export type Path = (string | number)[];

export interface Place {
  path: Path;
  pointer: string;
  kind: ClosedObjectKind;
}

export interface NeededKey {
  /** The object the key is deleted from. */
  path: Path;
  key: string;
  /** The error the deletion must cause. */
  code: string;
  pointer: string;
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export function toPointer(path: Path): string {
  return path.map((p) => `/${escapeToken(String(p))}`).join('');
}

export function valueAtPath(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

/** Every closed object in a config tree, with the kind of place it is. */
export function closedObjects(config: unknown): Place[] {
  const out: Place[] = [];
  const add = (value: unknown, path: Path, kind: ClosedObjectKind) => {
    if (isObject(value)) out.push({ path, pointer: toPointer(path), kind });
  };
  const outcomes = (owner: unknown, path: Path, kind: 'outcome' | 'outcome_with_deny') => {
    if (!isObject(owner)) return;
    for (const key of ['on_fail', 'on_success']) {
      const outcome = owner[key];
      add(outcome, [...path, key], kind);
      if (isObject(outcome)) add(outcome.feedback, [...path, key, 'feedback'], 'feedback');
    }
  };
  const hooks = (list: unknown, path: Path, kind: 'before_hook' | 'after_hook') => {
    if (!Array.isArray(list)) return;
    list.forEach((hook, i) => {
      add(hook, [...path, i], kind);
      outcomes(hook, [...path, i], kind === 'before_hook' ? 'outcome_with_deny' : 'outcome');
      const checks = isObject(hook) ? hook.checks : undefined;
      if (Array.isArray(checks)) checks.forEach((check, j) => add(check, [...path, i, 'checks', j], 'check'));
    });
  };
  const guardrails = (list: unknown, path: Path, kind: 'outcome' | 'outcome_with_deny') => {
    if (Array.isArray(list)) list.forEach((item, i) => outcomes(item, [...path, i], kind));
  };
  const node = (config: unknown, path: Path) => {
    if (!isObject(config)) return;
    add(config, path, 'config');
    if (isObject(config.strategy)) {
      add(config.strategy, [...path, 'strategy'], 'strategy');
      const conditions = config.strategy.conditions;
      if (Array.isArray(conditions)) conditions.forEach((c, i) => add(c, [...path, 'strategy', 'conditions', i], 'condition'));
    }
    add(config.cache, [...path, 'cache'], 'cache');
    add(config.retry, [...path, 'retry'], 'retry');
    add(config.cb_config, [...path, 'cb_config'], 'cb_config');
    if (Array.isArray(config.deployments)) config.deployments.forEach((d, i) => add(d, [...path, 'deployments', i], 'deployment'));
    hooks(config.before_request_hooks, [...path, 'before_request_hooks'], 'before_hook');
    hooks(config.after_request_hooks, [...path, 'after_request_hooks'], 'after_hook');
    guardrails(config.input_guardrails, [...path, 'input_guardrails'], 'outcome');
    guardrails(config.output_guardrails, [...path, 'output_guardrails'], 'outcome_with_deny');
    if (Array.isArray(config.targets)) config.targets.forEach((t, i) => node(t, [...path, 'targets', i]));
  };
  node(config, []);
  return out;
}

const REQUIRED: Partial<Record<ClosedObjectKind, string[]>> = {
  condition: ['query', 'then'],
  cache: ['mode'],
  retry: ['attempts'],
  cb_config: ['failure_threshold', 'cooldown_interval'],
  deployment: ['deployment_id', 'alias', 'api_version'],
  before_hook: ['id'],
  after_hook: ['id'],
  check: ['id', 'parameters'],
};

/** Every key whose deletion must cause an error, and that error (SPEC §2.1 and ARCHITECTURE §5). */
export function neededKeys(config: unknown): NeededKey[] {
  const out: NeededKey[] = [];
  for (const place of closedObjects(config)) {
    const value = valueAtPath(config, place.path) as Obj;
    for (const key of REQUIRED[place.kind] ?? []) {
      if (Object.hasOwn(value, key)) out.push({ path: place.path, key, code: 'CFG_MISSING_KEY', pointer: place.pointer });
    }
    if (place.kind === 'strategy') {
      out.push({ path: place.path, key: 'mode', code: 'CFG_MISSING_KEY', pointer: place.pointer });
      if (value.mode === 'conditional') {
        for (const key of ['conditions', 'default']) out.push({ path: place.path, key, code: 'CFG_CONDITIONAL_INCOMPLETE', pointer: place.pointer });
      }
    }
    if (place.kind === 'config') {
      if (Object.hasOwn(value, 'strategy') && Object.hasOwn(value, 'targets')) {
        out.push({ path: place.path, key: 'targets', code: 'CFG_STRATEGY_WITHOUT_TARGETS', pointer: place.pointer });
        out.push({ path: place.path, key: 'strategy', code: 'CFG_TARGETS_WITHOUT_STRATEGY', pointer: `${place.pointer}/targets` });
      }
      for (const key of Object.keys(value)) {
        const rest = Object.keys(value).filter((k) => k !== key);
        const stillValid = KEY_SETS.some((set) => set.every((k) => rest.includes(k)));
        if (!stillValid) out.push({ path: place.path, key, code: 'CFG_NO_KEY_SET', pointer: place.pointer });
      }
    }
  }
  return out;
}

export { CLOSED_OBJECT_KEYS };
