// Loads every JSON Schema under schema/ (the manifests api.json and providers.json are data, not schemas) in a stable order,
// and derives the names every artifact uses for it, so validators, types and routes agree.
import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCHEMA_DIR = join(REPO_ROOT, 'schema');
export const SCHEMA_ID_BASE = 'https://gateway.local/schema/';
export const MANIFEST_FILE = 'api.json';
/** The provider manifest (data checked against meta/provider-manifest.json, not a schema). */
export const PROVIDER_MANIFEST_FILE = 'providers.json';
/** Files under schema/ that hold data, not schemas: no validator or type is generated from them. */
const DATA_FILES: ReadonlySet<string> = new Set([MANIFEST_FILE, PROVIDER_MANIFEST_FILE]);

export type JsonObject = { [key: string]: unknown };

export interface SchemaFile {
  /** Path below schema/, posix separators: `requests/completion-create.json`. */
  file: string;
  /** `CompletionCreate`: the type name, and the validator export without its `validate` prefix. */
  typeName: string;
  /** `validateCompletionCreate`. */
  exportName: string;
  /** The `$id` the file must carry. */
  id: string;
  schema: JsonObject;
}

export function pascalCase(baseName: string): string {
  return baseName
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

async function listJsonFiles(dir: string, prefix: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    const rel = prefix === '' ? entry.name : posix.join(prefix, entry.name);
    if (entry.isDirectory()) found.push(...(await listJsonFiles(join(dir, entry.name), rel)));
    else if (entry.isFile() && entry.name.endsWith('.json')) found.push(rel);
  }
  return found;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function loadSchemaFiles(schemaDir: string = SCHEMA_DIR): Promise<SchemaFile[]> {
  const files = (await listJsonFiles(schemaDir, ''))
    .filter((file) => !DATA_FILES.has(file))
    .sort(compareCodeUnits);
  const byTypeName = new Map<string, string>();
  const loaded: SchemaFile[] = [];
  for (const file of files) {
    const schema = JSON.parse(await readFile(join(schemaDir, file), 'utf8')) as unknown;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new Error(`schema/${file}: a schema file must hold a JSON object`);
    }
    const typeName = pascalCase(posix.basename(file, '.json'));
    const clash = byTypeName.get(typeName);
    // Validator exports are named after the base name alone, so two files may not share one.
    if (clash !== undefined) throw new Error(`schema/${file} and schema/${clash} map to the same name ${typeName}`);
    byTypeName.set(typeName, file);
    loaded.push({ file, typeName, exportName: `validate${typeName}`, id: SCHEMA_ID_BASE + file, schema: schema as JsonObject });
  }
  return loaded;
}

export async function loadManifest(schemaDir: string = SCHEMA_DIR): Promise<unknown> {
  return JSON.parse(await readFile(join(schemaDir, MANIFEST_FILE), 'utf8')) as unknown;
}
