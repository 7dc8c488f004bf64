// Guardrails named by string in a config (ARCHITECTURE §5): a file in the guardrails folder beside
// the configs, or a guardrail stored through /v1/guardrails. Where a config compiles, the names it
// may use are those of a lookup: `gateway compile` knows the files, `serve` the files and the stored
// ones. A name resolves into the plan (the guardrail's checks are copied in), so a router never looks
// a guardrail up on the request path, and a changed guardrail recompiles the configs that name it.

/** A named guardrail in its stored form (what POST /v1/guardrails takes, without the id). */
export interface NamedGuardrail {
  checks: Array<{ id: string; parameters: Record<string, unknown> }>;
  deny?: boolean;
  async?: boolean;
  on_fail?: Record<string, unknown>;
  on_success?: Record<string, unknown>;
}

export interface GuardrailLookup {
  get(name: string): NamedGuardrail | undefined;
  /** Every name it knows, for "did you mean". */
  names(): string[];
  /** Where names are looked for, in words, for the error of an unknown one. */
  readonly where: string;
}

/** A lookup over a fixed map (the files `gateway compile` read, tests). */
export function guardrailMap(guardrails: ReadonlyMap<string, NamedGuardrail>, where: string): GuardrailLookup {
  return { get: (name) => guardrails.get(name), names: () => [...guardrails.keys()], where };
}

/** The plan's form of a named guardrail: a guardrail object with its checks as a list (a key no inline guardrail can have). */
export function resolvedGuardrail(name: string, guardrail: NamedGuardrail): Record<string, unknown> {
  const { checks, ...rules } = guardrail;
  return { ...rules, id: name, checks: checks.map((c) => ({ id: c.id, parameters: c.parameters })) };
}

/** The guardrail names a config uses (strings in input_guardrails / output_guardrails anywhere in its target tree). */
export function namedGuardrails(config: unknown): string[] {
  const names = new Set<string>();
  const walk = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || depth > 64) return;
    const raw = node as Record<string, unknown>;
    for (const field of ['input_guardrails', 'output_guardrails']) {
      const list = raw[field];
      if (Array.isArray(list)) for (const item of list) if (typeof item === 'string') names.add(item);
    }
    if (Array.isArray(raw.targets)) for (const child of raw.targets) walk(child, depth + 1);
  };
  walk(config, 0);
  return [...names];
}
