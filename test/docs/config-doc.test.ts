// docs/config.md stays true: it names every config field, its key-set table is the schema's, and
// every complete JSON example in it is a valid config that plans the way the prose says.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import configSchema from '../../schema/config.json' with { type: 'json' };
import { checkConfig } from '../../compiler/config/index.ts';
import type { PlanLeaf, PlanStrategy } from '../../compiler/config/route-plan.ts';

const doc = readFileSync(resolve(import.meta.dirname, '../../docs/config.md'), 'utf8');
const jsonBlocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);

describe('docs/config.md', () => {
  it('documents every field of the config schema', () => {
    const missing = Object.keys(configSchema.properties).filter((key) => !doc.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });

  it('its table of the 18 key sets is the schema\'s, in order', () => {
    const rows = doc
      .split('\n')
      .filter((line) => /^\| \d+ \| `/.test(line))
      .map((line) => line.split(' | ')[1].split(' + ').map((k) => k.replace(/`/g, '').trim()));
    expect(rows).toEqual((configSchema.anyOf as Array<{ required: string[] }>).map((b) => b.required));
  });

  it('names every query operator', () => {
    for (const op of ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex', '$and', '$or']) expect(doc).toContain(`\`${op}\``);
  });

  it('every complete JSON example is a valid config', () => {
    const complete = jsonBlocks.filter((block) => {
      try {
        JSON.parse(block);
        return true;
      } catch {
        return false; // fragments with "…" stand for elided parts
      }
    });
    expect(complete.length).toBeGreaterThanOrEqual(10);
    for (const block of complete) {
      const value = JSON.parse(block) as unknown;
      if (value !== null && typeof value === 'object' && 'error' in value) continue; // an error body, not a config
      const result = checkConfig(value);
      expect(result.ok ? [] : result.errors, block).toEqual([]);
    }
  });

  it('the inheritance example plans as its prose says', () => {
    const block = jsonBlocks.find((b) => b.includes('"sk-example-shared"'));
    const result = checkConfig(JSON.parse(block ?? 'null'));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const [defaultKey, mini] = (result.plan.root as PlanStrategy).targets as PlanLeaf[];
    expect(defaultKey).toMatchObject({ provider: 'vendor', apiKey: 'sk-example-shared', overrideParams: { model: 'gpt-4o', temperature: 0 }, retry: { attempts: 2 }, requestTimeoutMs: 10000 });
    expect(mini).toMatchObject({ provider: 'vendor', apiKey: 'sk-example-shared', overrideParams: { model: 'gpt-4o-mini', temperature: 0 }, retry: { attempts: 0 }, requestTimeoutMs: null });
  });
});
