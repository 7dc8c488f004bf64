// Where every schema location lives: documents by `$id`, `$ref` resolution (local pointers, relative
// files, anchors) and which ref targets can reach themselves, since only those need a depth budget.

export type Schema = boolean | SchemaObject;
export type SchemaObject = { [keyword: string]: unknown };

/**
 * A schema together with where it sits. Synthetic schemas are made by the generator (negations,
 * presence rules); they never hold a `$ref`, so they need no document to be read.
 */
export interface Located {
  readonly schema: Schema;
  readonly doc: string;
  readonly pointer: string;
  readonly synthetic?: string;
}

const ANONYMOUS_BASE = 'https://schema-arbitrary.invalid/';

// Keywords whose values are schemas, by shape. `$defs` is left out on purpose: definitions are only
// evaluated when something refers to them.
const SINGLE_KEYWORDS = [
  'additionalProperties', 'propertyNames', 'items', 'contains', 'not', 'if', 'then', 'else',
  'unevaluatedProperties', 'unevaluatedItems', 'contentSchema',
];
const LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas'];

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function escapePointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescapePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointerSegment);
}

export function synthetic(schema: Schema): Located {
  return { schema, doc: '', pointer: '', synthetic: JSON.stringify(schema) };
}

export function locationKey(loc: Located): string {
  return loc.synthetic !== undefined ? `~${loc.synthetic}` : `${loc.doc}#${loc.pointer}`;
}

/** The subschema at `segments` below `loc`; `false`-free JSON means an absent keyword reads as `true`. */
export function child(loc: Located, ...segments: (string | number)[]): Located {
  let value: unknown = loc.schema;
  for (const segment of segments) {
    value = isSchemaObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  const schema: Schema = value === undefined ? true : (value as Schema);
  if (loc.synthetic !== undefined) return synthetic(schema);
  const suffix = segments.map((s) => `/${escapePointerSegment(String(s))}`).join('');
  return { schema, doc: loc.doc, pointer: loc.pointer + suffix };
}

function fileName(uri: string): string {
  const path = uri.split('#')[0].split('?')[0];
  return path.slice(path.lastIndexOf('/') + 1);
}

interface Resource {
  readonly doc: string;
  readonly pointer: string;
}

export class SchemaRegistry {
  /** Documents as Ajv should load them: each carries an absolute `$id`. */
  readonly documents: SchemaObject[] = [];
  private readonly ids = new Map<object, string>();
  private readonly roots = new Map<string, SchemaObject>();
  private readonly resources = new Map<string, Resource>();
  private readonly anchors = new Map<string, Resource>();
  private readonly recursive = new Map<string, boolean>();

  constructor(documents: readonly object[]) {
    documents.forEach((doc, index) => this.addDocument(doc, index));
  }

  /** The `$id` a document given to the constructor is known by (assigned when it had none). */
  idOf(document: object): string {
    const id = this.ids.get(document);
    if (id === undefined) throw new Error('schema-arbitrary: document not registered');
    return id;
  }

  at(doc: string, pointer: string): Located {
    let value: unknown = this.roots.get(doc);
    for (const segment of pointerSegments(pointer)) {
      value = isSchemaObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[segment] : undefined;
    }
    if (value === undefined) throw new Error(`schema-arbitrary: nothing at ${doc}#${pointer}`);
    return { schema: value as Schema, doc, pointer };
  }

  /** The absolute URI Ajv knows this location by. */
  uri(loc: Located): string {
    const fragment = pointerSegments(loc.pointer).map((s) => `/${encodeURIComponent(escapePointerSegment(s))}`).join('');
    return `${loc.doc}#${fragment}`;
  }

  /** Finds a document by its absolute `$id`, or, for schemas loaded without one, by file name. */
  documentFor(uri: string): string | undefined {
    const bare = uri.split('#')[0];
    if (this.resources.has(bare)) return this.resources.get(bare)?.doc;
    const matches = [...this.roots.keys()].filter((id) => fileName(id) === fileName(bare));
    return matches.length === 1 ? matches[0] : undefined;
  }

  resolve(from: Located, ref: string): Located {
    if (from.synthetic !== undefined) throw new Error('schema-arbitrary: synthetic schemas carry no $ref');
    const absolute = new URL(ref, this.baseAt(from)).href;
    const [bare, rawFragment = ''] = absolute.split('#');
    let resource = this.resources.get(bare);
    if (resource === undefined) {
      const doc = this.documentFor(bare);
      if (doc !== undefined) resource = { doc, pointer: '' };
    }
    if (resource === undefined) throw new Error(`schema-arbitrary: cannot resolve $ref "${ref}" from ${locationKey(from)}`);
    const fragment = decodeURIComponent(rawFragment);
    if (fragment === '' || fragment.startsWith('/')) return this.at(resource.doc, resource.pointer + fragment);
    const anchor = this.anchors.get(`${bare}#${fragment}`);
    if (anchor === undefined) throw new Error(`schema-arbitrary: no anchor "${fragment}" in ${bare}`);
    return this.at(anchor.doc, anchor.pointer);
  }

  /** True when generating `target` can lead back to `target` through `$ref`s. */
  isRecursive(target: Located): boolean {
    const key = locationKey(target);
    const known = this.recursive.get(key);
    if (known !== undefined) return known;
    const visited = new Set<string>();
    const pending: Located[] = this.subschemas(target);
    let found = false;
    while (pending.length > 0 && !found) {
      const loc = pending.pop() as Located;
      const locKey = locationKey(loc);
      if (locKey === key) found = true;
      else if (!visited.has(locKey)) {
        visited.add(locKey);
        pending.push(...this.subschemas(loc));
      }
    }
    this.recursive.set(key, found);
    return found;
  }

  /** Every schema directly evaluated at or below `loc`, with `$ref`s followed one step. */
  private subschemas(loc: Located): Located[] {
    const schema = loc.schema;
    if (!isSchemaObject(schema)) return [];
    const found: Located[] = [];
    if (typeof schema.$ref === 'string') found.push(this.resolve(loc, schema.$ref));
    for (const keyword of SINGLE_KEYWORDS) if (keyword in schema) found.push(child(loc, keyword));
    for (const keyword of LIST_KEYWORDS) {
      const list = schema[keyword];
      if (Array.isArray(list)) list.forEach((_, i) => found.push(child(loc, keyword, i)));
    }
    for (const keyword of MAP_KEYWORDS) {
      const map = schema[keyword];
      if (isSchemaObject(map)) for (const name of Object.keys(map)) found.push(child(loc, keyword, name));
    }
    return found;
  }

  private addDocument(input: object, index: number): string {
    if (!isSchemaObject(input)) throw new Error('schema-arbitrary: a schema document must be an object');
    const declared = typeof input.$id === 'string' ? input.$id : undefined;
    const id = new URL(declared ?? `doc-${index}.json`, ANONYMOUS_BASE).href.split('#')[0];
    this.ids.set(input, id);
    if (this.roots.has(id)) return id;
    const doc = declared === id ? input : { ...input, $id: id };
    this.roots.set(id, doc);
    this.documents.push(doc);
    this.indexResources(doc, id, id, '');
    return id;
  }

  // Embedded `$id`s and `$anchor`s become addressable resources, as the 2020-12 core spec says.
  private indexResources(value: unknown, doc: string, base: string, pointer: string): void {
    if (Array.isArray(value)) {
      value.forEach((item, i) => this.indexResources(item, doc, base, `${pointer}/${i}`));
      return;
    }
    if (!isSchemaObject(value)) return;
    let scope = base;
    if (typeof value.$id === 'string') {
      scope = new URL(value.$id, base).href.split('#')[0];
      this.resources.set(scope, { doc, pointer });
    }
    if (typeof value.$anchor === 'string') this.anchors.set(`${scope}#${value.$anchor}`, { doc, pointer });
    for (const [key, item] of Object.entries(value)) {
      if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
      this.indexResources(item, doc, scope, `${pointer}/${escapePointerSegment(key)}`);
    }
  }

  private baseAt(loc: Located): string {
    let base = loc.doc;
    let value: unknown = this.roots.get(loc.doc);
    const segments = pointerSegments(loc.pointer);
    for (let i = 0; i <= segments.length; i++) {
      if (isSchemaObject(value) && typeof value.$id === 'string') base = new URL(value.$id, base).href;
      if (i < segments.length) value = (value as Record<string, unknown> | undefined)?.[segments[i]];
    }
    return base;
  }
}
