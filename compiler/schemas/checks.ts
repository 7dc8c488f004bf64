// generated/checks.ts: the built-in guardrail checks, one per schema/checks/<name>-check.json: the
// check id (`default.<name>`), its parameter validator, and its parameter names (for "did you mean").
// The list of checks is the list of files: adding a check starts with its schema.
import { type Artifact, GENERATED_HEADER } from './artifact.ts';
import type { SchemaFile } from './schema-files.ts';

export const CHECKS_DIR = 'checks/';
const SUFFIX = '-check.json';

export function checksArtifact(schemas: readonly SchemaFile[]): Artifact {
  const checks = schemas.filter((s) => s.file.startsWith(CHECKS_DIR));
  for (const check of checks) {
    if (!check.file.endsWith(SUFFIX)) throw new Error(`schema/${check.file}: a check's schema is named <name>${SUFFIX}`);
  }
  const lines = [
    GENERATED_HEADER,
    '// The built-in guardrail checks (schema/checks/): id, parameter validator, parameter names.',
    `import { ${checks.map((c) => c.exportName).join(', ')} } from './validators.js';`,
    '',
    'export interface CheckSpec {',
    '  /** `default.<name>`. */',
    '  id: string;',
    '  /** Fail-fast validator of the parameters object (generated/validators.js). */',
    '  validate: ((value: unknown) => boolean) & { errors?: unknown[] | null };',
    '  parameters: readonly string[];',
    '  required: readonly string[];',
    '}',
    '',
    'export const CHECKS: Readonly<Record<string, CheckSpec>> = {',
    ...checks.map((c) => {
      const name = c.file.slice(CHECKS_DIR.length, -SUFFIX.length);
      const properties = Object.keys((c.schema.properties as Record<string, unknown> | undefined) ?? {});
      const required = (c.schema.required as string[] | undefined) ?? [];
      return `  ${JSON.stringify(`default.${name}`)}: { id: ${JSON.stringify(`default.${name}`)}, validate: ${c.exportName} as CheckSpec['validate'], parameters: ${JSON.stringify(properties)}, required: ${JSON.stringify(required)} },`;
    }),
    '};',
    '',
  ];
  return { path: 'generated/checks.ts', contents: lines.join('\n') };
}
