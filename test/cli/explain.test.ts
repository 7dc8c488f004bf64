// `gateway explain`: every node of a valid config appears, with its share or order and its settings,
// and no credential written in it; an invalid config prints its errors located and exits 1.
import { describe, expect, it } from 'vitest';
import { fc } from '@fast-check/vitest';
import { resolve } from 'node:path';
import { runExplain } from '../../compiler/cli/explain.ts';
import { explainPlan, explainText, type ExplainedNode } from '../../compiler/config/explain.ts';
import { checkConfig } from '../../compiler/config/index.ts';
import type { PlanNode } from '../../compiler/config/route-plan.ts';
import { structurallyValidConfig } from '../config/config-arbitrary.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');

async function explain(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { result: code, stdout, stderr } = await capturedOutput(() => runExplain(argv));
  return { code, stdout, stderr };
}

function paths(node: PlanNode): string[] {
  return node.kind === 'leaf' ? [node.path] : [node.path, ...node.targets.flatMap(paths)];
}

function explainedPaths(node: ExplainedNode): string[] {
  return [node.path, ...(node.targets ?? []).flatMap(explainedPaths)];
}

describe('gateway explain', () => {
  it('says who answers when in the shipped examples, with credentials redacted', async () => {
    const run = await explain(resolve(ROOT, 'examples/configs/fallback-of-loadbalance.json'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('fallback over 2 targets, tried in order');
    expect(run.stdout).toContain('config.targets[0].targets[0]: 50% (weight 2)');
    expect(run.stdout).not.toMatch(/sk-example-pool-1/);
    const guarded = await explain(resolve(ROOT, 'examples/configs/guardrails.json'), '--json');
    const tree = JSON.parse(guarded.stdout) as { tree: ExplainedNode };
    expect(tree.tree.details.join('\n')).toMatch(/no-pii \(default\.piiRedact, default\.regexMatch; denies \(446\) when it fails\)/);
  });

  it('prints an invalid config\'s errors, located, and exits 1', async () => {
    const run = await explain(resolve(ROOT, 'examples/broken/misspelt-keys.json'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/misspelt-keys\.json:2:3 {2}CFG_UNKNOWN_KEY {2}\/stratgy/);
    expect((await explain()).code).toBe(2);
  });

  it('explains every node of any valid config, loadbalance shares adding up to 100%', () => {
    fc.assert(
      fc.property(structurallyValidConfig, (config) => {
        const checked = checkConfig(config);
        fc.pre(checked.ok);
        if (!checked.ok) return;
        const explained = explainPlan(checked.plan);
        expect(explainedPaths(explained)).toEqual(paths(checked.plan.root));
        expect(explainText(checked.plan)).toContain(`config ${checked.plan.configId}`);
        const walk = (node: ExplainedNode): void => {
          if (node.summary.startsWith('loadbalance')) {
            const shares = (node.picks ?? []).map((p) => Number(/: ([\d.]+)%/.exec(p)?.[1] ?? 0));
            const total = shares.reduce((a, b) => a + b, 0);
            if (total > 0) expect(Math.abs(total - 100)).toBeLessThanOrEqual(0.1 * shares.length);
          }
          (node.targets ?? []).forEach(walk);
        };
        walk(explained);
      }),
      { numRuns: 200 },
    );
  });
});
