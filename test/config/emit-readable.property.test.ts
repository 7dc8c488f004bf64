// Emitted routers are for reading: every target is one `rt.leaf({…})` holding only the fields that
// differ from LEAF_DEFAULTS, one per line; no constant is declared that nothing reads; credentials
// are read from slots, so the source holds none and a key rotation changes no line of it.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { emitRouter, emitRouterModule } from '../../compiler/config/emit.ts';
import { checkConfig } from '../../compiler/config/index.ts';
import { LEAF_DEFAULTS, type PlanLeaf, type PlanNode } from '../../compiler/config/route-plan.ts';
import { configArb } from '../routing/arbitraries.ts';

function leavesOf(node: PlanNode): PlanLeaf[] {
  return node.kind === 'leaf' ? [node] : node.targets.flatMap(leavesOf);
}

/** The config with every api_key replaced, in tree order, by the next of `keys`. */
function withKeys(config: unknown, keys: string[]): unknown {
  let i = 0;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'api_key' ? keys[i++ % keys.length] : walk(v)]));
  };
  return walk(config);
}

const keyArb = fc.stringMatching(/^sk-[A-Za-z0-9]{16,32}$/);

describe('emitted routers read like the config', () => {
  test.prop([configArb(), fc.array(keyArb, { minLength: 1, maxLength: 4 })], { numRuns: 150 })('declare nothing unread, write only non-default fields one per line, and hold no credential', (config, keys) => {
    const checked = checkConfig(withKeys(config, keys), 'readable');
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const { body, credentials } = emitRouter(checked.plan);
    for (const [, identifier] of body.matchAll(/const (\w+) = /g)) {
      expect(body.match(new RegExp(`\\b${identifier}\\b`, 'g'))!.length, identifier).toBeGreaterThan(1);
    }
    const byPath = new Map(leavesOf(checked.plan.root).map((leaf) => [leaf.path, leaf]));
    const blocks = [...body.matchAll(/rt\.leaf\(\{\n([\s\S]*?)\n\}\);/g)].map((m) => m[1].split('\n'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const lines of blocks) {
      const leaf = byPath.get(JSON.parse(/^ {2}path: (.*),$/.exec(lines[0])![1]) as string)!;
      const differing = (Object.keys(LEAF_DEFAULTS) as (keyof PlanLeaf)[]).filter((key) => key === 'path' || JSON.stringify(leaf[key]) !== JSON.stringify(LEAF_DEFAULTS[key]));
      expect(lines.map((line) => /^ {2}(\w+): /.exec(line)?.[1]).sort()).toEqual([...differing].sort());
    }
    // One slot per emitted key, each holding a key of the config.
    expect(credentials).toHaveLength(body.match(/credentials\[\d+\]/g)?.length ?? 0);
    for (const credential of credentials) expect(keys).toContain(credential);
    for (const key of keys) expect(body + emitRouterModule(checked.plan, 'readable.json')).not.toContain(key);
  });

  it('write a long value every leaf inherits once, as a constant the leaves name, and a short one in each leaf', () => {
    const words = Array.from({ length: 500 }, (_, i) => `inherited-word-${i}`);
    const config = {
      output_guardrails: [{ id: 'blocklist', 'default.contains': { words, operator: 'none' } }],
      retry: { attempts: 2 },
      strategy: { mode: 'loadbalance' },
      targets: Array.from({ length: 100 }, () => ({ provider: 'openai', api_key: 'sk-test-inherit' })),
    };
    const checked = checkConfig(config, 'inherited');
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const { body } = emitRouter(checked.plan);
    expect(body.split('inherited-word-499').length - 1).toBe(1);
    const guardrailLines = body.match(/^ {2}outputGuardrails: (\w+),$/gm) ?? [];
    expect(guardrailLines).toHaveLength(100);
    expect(new Set(guardrailLines).size).toBe(1);
    expect(body.match(/^ {2}retry: \{.*"attempts":2.*\},$/gm) ?? []).toHaveLength(100);
    // A tenth of what the list alone would take written into each leaf.
    expect(body.length).toBeLessThan(100 * JSON.stringify(words).length / 10);
  });

  test.prop([configArb(), keyArb, keyArb], { numRuns: 100 })('a key rotation changes no line of the router', (config, before, after) => {
    const emit = (key: string) => {
      const checked = checkConfig(withKeys(config, [key]), 'rotated');
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      return emitRouterModule(checked.plan, 'rotated.json');
    };
    expect(emit(after)).toBe(emit(before));
  });
});
