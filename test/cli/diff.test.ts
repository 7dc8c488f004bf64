// `gateway diff`: a config compared with itself is the same (exit 0); a mutated one names the node
// the mutation is at (a property over generated configs); folders and git:REF:path work as sources.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fc } from '@fast-check/vitest';
import { runDiff } from '../../compiler/cli/diff.ts';
import { diffPlans } from '../../compiler/config/diff.ts';
import { checkConfig } from '../../compiler/config/index.ts';
import { structurallyValidConfig } from '../config/config-arbitrary.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');
type Raw = Record<string, unknown>;

async function diff(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { result: code, stdout, stderr } = await capturedOutput(() => runDiff(argv), ROOT);
  return { code, stdout, stderr };
}

/** Every node of a config with the plan path it gets. */
function nodes(config: Raw, path = 'config'): Array<{ node: Raw; path: string }> {
  const children = Array.isArray(config.targets) ? (config.targets as Raw[]) : [];
  return [{ node: config, path }, ...children.flatMap((child, i) => nodes(child, `${path}.targets[${i}]`))];
}

describe('gateway diff', () => {
  let temp: string;
  beforeEach(() => {
    temp = mkdtempSync(join(tmpdir(), 'gateway-diff-'));
  });
  afterEach(() => rmSync(temp, { recursive: true, force: true }));

  it('finds nothing between a config and itself, and names the node a mutation is at', () => {
    fc.assert(
      fc.property(structurallyValidConfig, fc.nat(), fc.integer({ min: 1, max: 600_000 }), (config, pick, timeout) => {
        const before = checkConfig(config);
        fc.pre(before.ok);
        if (!before.ok) return;
        expect(diffPlans(before.plan, before.plan)).toEqual([]);
        const mutated = structuredClone(config) as Raw;
        const all = nodes(mutated);
        const { node, path } = all[pick % all.length];
        fc.pre(node.request_timeout !== timeout);
        node.request_timeout = timeout;
        const after = checkConfig(mutated);
        fc.pre(after.ok);
        if (!after.ok) return;
        const changes = diffPlans(before.plan, after.plan);
        expect(changes.map((c) => c.path)).toContain(path);
      }),
      { numRuns: 200 },
    );
  });

  it('compares files, folders and git revisions, with exit 0 when routing is the same and 1 when it differs', async () => {
    const same = await diff('git:HEAD:examples/configs', 'examples/configs');
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe('routing is the same\n');
    const source = readFileSync(join(ROOT, 'examples/configs/fallback-of-loadbalance.json'), 'utf8');
    mkdirSync(join(temp, 'old'));
    mkdirSync(join(temp, 'new'));
    writeFileSync(join(temp, 'old', 'pool.json'), source);
    writeFileSync(join(temp, 'new', 'pool.json'), source.replace('"weight": 2', '"weight": 3').replace('sk-example-pool-1', 'sk-example-pool-9'));
    writeFileSync(join(temp, 'new', 'extra.json'), '{"provider": "vendor", "api_key": "${VENDOR_KEY}"}');
    const changed = await diff(join(temp, 'old'), join(temp, 'new'));
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('config extra: added');
    expect(changed.stdout).toContain('+ config.targets[0].targets[0]: 60% (weight 3)');
    expect(changed.stdout).toMatch(/~ config\.targets\[0\]\.targets\[0\]\n {6}- calls provider vendor with key sk-…ol-1\n {6}\+ calls provider vendor with key sk-…ol-9/);
    expect(changed.stdout).not.toContain('sk-example-pool');
    const json = await diff(join(temp, 'old', 'pool.json'), join(temp, 'new', 'pool.json'), '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ same: false, configs: [{ id: 'pool', change: 'changed' }] });
  });

  it('refuses an invalid config with its errors, located, and exit 2', async () => {
    const run = await diff('examples/broken/misspelt-keys.json', 'examples/configs/mock.json');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/misspelt-keys\.json:2:3 {2}CFG_UNKNOWN_KEY/);
  });
});
