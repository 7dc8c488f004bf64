// arbitraryFromSchema over every schema under schema/, as it stands when the tests run: drawn values
// are valid, filters reject rarely, and configs (the main consumer) cover what SPEC §2.1 allows.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { arbitraryFromSchema, type FilterStats } from './schema-arbitrary.ts';
import { createTestAjv, drawValid, withSeed } from './schema-arbitrary-harness.ts';

const SCHEMA_DIR = fileURLToPath(new URL('../../schema/', import.meta.url));
const RUNS = 200;
const DEF_RUNS = 40;
const CONFIG_RUNS = 300;
const MAX_REJECTION_RATE = 0.1;

type Doc = Record<string, unknown> & { $id: string };

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

// A schema declares the JSON Schema meta-schema; data files such as the endpoint manifest do not.
const files = jsonFiles(SCHEMA_DIR)
  .map((path) => ({ file: relative(SCHEMA_DIR, path), doc: JSON.parse(readFileSync(path, 'utf8')) as Doc }))
  .filter(({ doc }) => typeof doc.$schema === 'string' && doc.$schema.includes('json-schema.org') && typeof doc.$id === 'string');
const docs = files.map((f) => f.doc);
const ajv = createTestAjv(docs);

function validatorFor(id: string) {
  const validate = ajv.getSchema(id);
  if (validate === undefined) throw new Error(`no schema ${id}`);
  return validate;
}

function rejectionRate(stats: FilterStats): number {
  return stats.checks === 0 ? 0 : stats.rejections / stats.checks;
}

describe('every schema under schema/', () => {
  it('is found', () => {
    expect(files.map((f) => f.file)).toContain('config.json');
  });

  for (const { file, doc } of files) {
    it(`${file}: ${RUNS} values are valid and filters reject under ${MAX_REJECTION_RATE * 100}%`, () => {
      const stats: FilterStats = { checks: 0, rejections: 0 };
      const arb = arbitraryFromSchema(doc, { schemas: docs, stats });
      const { seed } = drawValid(arb, validatorFor(doc.$id), RUNS);
      withSeed(seed, () => expect(rejectionRate(stats)).toBeLessThan(MAX_REJECTION_RATE));
    });

    const defs = typeof doc.$defs === 'object' && doc.$defs !== null ? Object.keys(doc.$defs) : [];
    if (defs.length === 0) continue;
    it(`${file}: each of its ${defs.length} $defs generates valid values`, () => {
      for (const name of defs) {
        const entry = { $ref: `${doc.$id}#/$defs/${name.replaceAll('~', '~0').replaceAll('/', '~1')}` };
        const arb = arbitraryFromSchema(entry, { schemas: docs });
        drawValid(arb, ajv.compile(entry), DEF_RUNS);
      }
    });
  }
});

interface ConfigNode {
  strategy?: { mode: string };
  targets?: ConfigNode[];
  [key: string]: unknown;
}

function nodes(config: ConfigNode, depth = 0): { node: ConfigNode; depth: number }[] {
  return [{ node: config, depth }, ...(config.targets ?? []).flatMap((t) => nodes(t, depth + 1))];
}

const configFile = files.find((f) => f.file === 'config.json');

describe.runIf(configFile !== undefined)('configs from schema/config.json', () => {
  const schema = configFile?.doc as Doc;
  const keySets = (schema.anyOf as { required: string[] }[]).map((branch) => branch.required);
  const strategy = (schema.$defs as Record<string, { properties: { mode: { enum: string[] } } }>).strategy;
  const modes = strategy.properties.mode.enum;

  it(`cover all ${keySets.length} key sets, every strategy mode and nested targets over ${CONFIG_RUNS} runs`, () => {
    expect(keySets).toHaveLength(18);
    const stats: FilterStats = { checks: 0, rejections: 0 };
    const arb = arbitraryFromSchema(schema, { schemas: docs, stats });
    const { seed, values } = drawValid(arb, validatorFor(schema.$id), CONFIG_RUNS);
    const all = values.flatMap((v) => nodes(v as ConfigNode));
    withSeed(seed, () => {
      const missingSets = keySets.filter((set) => !all.some(({ node }) => set.every((k) => k in node)));
      expect(missingSets).toEqual([]);
      const seenModes = new Set(all.flatMap(({ node }) => (node.strategy ? [node.strategy.mode] : [])));
      expect(seenModes).toEqual(new Set(modes));
      expect(Math.max(...all.map(({ depth }) => depth))).toBe(2);
      expect(rejectionRate(stats)).toBeLessThan(MAX_REJECTION_RATE);
    });
  });

  it('nest no deeper than maxDepth', () => {
    const arb = arbitraryFromSchema(schema, { schemas: docs, maxDepth: 1 });
    const { seed, values } = drawValid(arb, validatorFor(schema.$id), 100);
    const depths = values.flatMap((v) => nodes(v as ConfigNode).map(({ depth }) => depth));
    withSeed(seed, () => expect(Math.max(...depths)).toBe(1));
  });
});
