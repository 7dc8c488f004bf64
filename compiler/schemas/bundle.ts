// Gathers every schema file into one document whose references are all local pointers, so a consumer
// (json-schema-to-typescript, OpenAPI) never resolves a URL and declares each shared shape once.
import type { JsonObject, SchemaFile } from './schema-files.ts';

/** Where the bundled copy of a schema file lives, e.g. `#/$defs/` or `#/components/schemas/`. */
export type BundlePrefix = string;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rewrites a `$ref` found in `from` into a pointer below `prefix`. */
export function bundledRef(ref: string, from: SchemaFile, byId: ReadonlyMap<string, SchemaFile>, prefix: BundlePrefix): string {
  const target = new URL(ref, from.id);
  const fragment = decodeURIComponent(target.hash.replace(/^#/, ''));
  target.hash = '';
  const file = byId.get(target.href);
  if (file === undefined) throw new Error(`schema/${from.file}: $ref ${ref} names no schema file`);
  if (fragment !== '' && !fragment.startsWith('/')) throw new Error(`schema/${from.file}: $ref ${ref} uses an anchor; use a JSON pointer`);
  return `${prefix}${file.typeName}${fragment}`;
}

export interface BundleOptions {
  prefix: BundlePrefix;
  /** Rewrites each keyword whose value is `{ "$data": pointer }`; return the replacement entries. */
  onData?: (keyword: string, pointer: string) => Record<string, unknown>;
}

function rewrite(node: unknown, from: SchemaFile, byId: ReadonlyMap<string, SchemaFile>, options: BundleOptions): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, from, byId, options));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      out[key] = bundledRef(value, from, byId, options.prefix);
    } else if (options.onData !== undefined && isObject(value) && typeof value.$data === 'string') {
      Object.assign(out, options.onData(key, value.$data));
    } else if (key === 'properties' || key === '$defs' || key === 'patternProperties' || key === 'dependentSchemas') {
      // Keys of these maps are names, not keywords; only their values are schemas.
      const names: JsonObject = {};
      for (const [name, schema] of Object.entries(isObject(value) ? value : {})) names[name] = rewrite(schema, from, byId, options);
      out[key] = names;
    } else if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') {
      out[key] = value;
    } else {
      out[key] = rewrite(value, from, byId, options);
    }
  }
  return out;
}

/** Each schema file, keyed by type name, with `$id`/`$schema` dropped and refs pointing below `prefix`. */
export function bundleSchemas(schemas: readonly SchemaFile[], options: BundleOptions): Record<string, JsonObject> {
  const byId = new Map(schemas.map((file) => [file.id, file]));
  const bundled: Record<string, JsonObject> = {};
  for (const file of schemas) {
    const { $id: _id, $schema: _schema, ...rest } = file.schema;
    bundled[file.typeName] = { ...(rewrite(rest, file, byId, options) as JsonObject), title: file.typeName };
  }
  return bundled;
}
