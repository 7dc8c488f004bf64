// generated/ is committed; this fails whenever schema/ or the generators changed without regenerating.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { GENERATED_HEADER, GENERATED_JSON_NOTE } from '../../compiler/schemas/artifact.ts';
import { generateArtifacts } from '../../compiler/schemas/generate.ts';
import { REPO_ROOT } from '../../compiler/schemas/schema-files.ts';

const artifacts = await generateArtifacts();

describe('generated/ is fresh', () => {
  test('builds every artifact the server and compiler load', () => {
    expect(artifacts.map((artifact) => artifact.path).sort()).toEqual([
      'generated/checks.ts',
      'generated/client/client.ts',
      'generated/client/http.ts',
      'generated/client/types.ts',
      'generated/client/validators.d.ts',
      'generated/client/validators.js',
      'generated/config-validator.d.ts',
      'generated/config-validator.js',
      'generated/openapi.json',
      'generated/routes.ts',
      'generated/types.ts',
      'generated/validators.d.ts',
      'generated/validators.js',
    ]);
  });

  test.each(artifacts.map((artifact) => [artifact.path, artifact.contents]))(
    '%s matches a fresh regeneration (run `npm run generate`)',
    async (path, contents) => {
      const committed = await readFile(join(REPO_ROOT, path), 'utf8');
      expect(committed === contents, `${path} is stale`).toBe(true);
    },
  );

  test('regeneration is deterministic', async () => {
    const again = await generateArtifacts();
    expect(again).toEqual(artifacts);
  });

  test.each(artifacts.map((artifact) => [artifact.path, artifact.contents]))('%s carries the generated header', (path, contents) => {
    if (path.endsWith('.json')) expect((JSON.parse(contents) as Record<string, unknown>)['x-generated']).toBe(GENERATED_JSON_NOTE);
    else expect(contents.split('\n')[0]).toBe(GENERATED_HEADER);
  });
});
