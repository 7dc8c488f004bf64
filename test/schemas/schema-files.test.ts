// Hygiene every schema file must keep: the $id convention, relative refs that resolve, strict compile.
import { copyFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, describe, expect, test } from 'vitest';
import { createAjv } from '../../compiler/schemas/ajv-instance.ts';
import { generateArtifacts } from '../../compiler/schemas/generate.ts';
import { loadSchemaFiles, SCHEMA_DIR, SCHEMA_ID_BASE, type JsonObject, type SchemaFile } from '../../compiler/schemas/schema-files.ts';

const schemas = await loadSchemaFiles();
const byId = new Map(schemas.map((file) => [file.id, file]));

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else if (key !== 'const' && key !== 'enum' && key !== 'default' && key !== 'examples') refsIn(value, found);
    }
  }
  return found;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !(token in node)) return undefined;
    node = (node as JsonObject)[token];
  }
  return node;
}

const cases = schemas.map((file) => [file.file, file] as [string, SchemaFile]);

describe('schema files', () => {
  test('include every shape the spec and the manifest need', () => {
    const files = schemas.map((file) => file.file);
    for (const expected of [
      'config.json', 'resources/error.json', 'resources/metadata.json', 'resources/fine-tuning-job.json',
      'resources/fine-tuning-checkpoint.json', 'resources/batch.json', 'resources/text-completion.json',
      'resources/rendered-prompt.json', 'resources/stored-response.json', 'resources/rate-limits-policy.json',
      'resources/usage-limits-policy-created.json', 'resources/fine-tuning-job-list.json',
      'resources/fine-tuning-checkpoint-list.json', 'resources/rate-limits-policy-list.json',
      'requests/prompt-render.json', 'requests/fine-tuning-job-create.json', 'requests/fine-tuning-job-list-query.json',
      'requests/fine-tuning-checkpoint-list-query.json', 'requests/batch-create.json', 'requests/completion-create.json',
      'requests/response-get-query.json', 'requests/usage-limits-policy-create.json',
      'requests/rate-limits-policy-get-query.json', 'requests/rate-limits-policy-list-query.json',
      'requests/chat-completion-create.json', 'requests/embeddings-create.json',
    ]) {
      expect(files).toContain(expected);
    }
  });

  test.each(cases)('%s is draft 2020-12 with an $id ending in its own path', (file, schema) => {
    expect(schema.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.schema.$id).toBe(SCHEMA_ID_BASE + file);
  });

  test.each(cases)('%s uses only relative $refs that resolve', (file, schema) => {
    for (const ref of refsIn(schema.schema)) {
      expect(ref, `${file}: ${ref} must be relative`).not.toMatch(/^[a-z][a-z0-9+.-]*:/i);
      expect(ref.startsWith('/'), `${file}: ${ref} must not be root-relative`).toBe(false);
      const target = new URL(ref, schema.id);
      const pointer = decodeURIComponent(target.hash.replace(/^#/, ''));
      target.hash = '';
      const targetFile = byId.get(target.href);
      expect(targetFile, `${file}: ${ref} names no schema file`).toBeDefined();
      expect(resolvePointer(targetFile?.schema, pointer), `${file}: ${ref} points at nothing`).toBeDefined();
    }
  });

  test.each(cases)('%s compiles in strict mode', (file, schema) => {
    const ajv = createAjv(schemas, { allErrors: false, source: false });
    expect(() => ajv.getSchema(schema.id), file).not.toThrow();
    expect(typeof ajv.getSchema(schema.id)).toBe('function');
  });

  test('strict mode is really on: an unknown keyword is refused', () => {
    const probe: SchemaFile = {
      file: 'probe.json',
      typeName: 'Probe',
      exportName: 'validateProbe',
      id: `${SCHEMA_ID_BASE}probe.json`,
      schema: { $id: `${SCHEMA_ID_BASE}probe.json`, type: 'object', minLenght: 3 },
    };
    const ajv = createAjv([probe], { allErrors: false, source: false });
    expect(() => ajv.getSchema(probe.id)).toThrow(/strict mode/);
  });

  test('a fresh Ajv with every keyword and format check agrees the schemas are valid 2020-12', () => {
    const ajv = new Ajv2020({ $data: true, strict: false });
    addFormats.default(ajv);
    for (const file of schemas) expect(ajv.validateSchema(file.schema), `${file.file}: ${ajv.errorsText()}`).toBe(true);
  });
});

describe('generation inputs', () => {
  const copies: string[] = [];
  afterAll(async () => {
    for (const dir of copies) await rm(dir, { recursive: true, force: true });
  });

  async function schemaCopy(mutate: (dir: string) => Promise<void>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-schema-'));
    copies.push(dir);
    await cp(SCHEMA_DIR, dir, { recursive: true });
    await mutate(dir);
    return dir;
  }

  test('two schema files with the same base name are refused, since validator names would clash', async () => {
    const dir = await schemaCopy((copy) => copyFile(join(copy, 'resources/batch.json'), join(copy, 'requests/batch.json')));
    await expect(loadSchemaFiles(dir)).rejects.toThrow(/same name Batch/);
  });

  test('without config.json every artifact but the config validator is still built', async () => {
    const dir = await schemaCopy((copy) => rm(join(copy, 'config.json')));
    const paths = (await generateArtifacts(dir)).map((artifact) => artifact.path);
    expect(paths).toContain('generated/validators.js');
    expect(paths).toContain('generated/routes.ts');
    expect(paths.some((path) => path.startsWith('generated/config-validator'))).toBe(false);
  });
});
