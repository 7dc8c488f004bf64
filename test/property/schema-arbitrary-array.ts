// Arrays: length from minItems/maxItems (capped so values stay small), items and prefixItems from the
// merged member schemas, uniqueItems by deep equality as Ajv judges it.
import fc from 'fast-check';
import { pos, type Constraint } from './schema-arbitrary-constraints.ts';
import type { BuildHost, Ctx } from './schema-arbitrary-host.ts';
import type { Leaf } from './schema-arbitrary-leaves.ts';
import { child, isSchemaObject, type Located, type SchemaObject } from './schema-arbitrary-registry.ts';

/** JSON with sorted keys, so two deep-equal values get the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

function itemConstraints(members: readonly Located[], index: number): Constraint[] {
  const found: Constraint[] = [];
  for (const m of members) {
    const s = m.schema as SchemaObject;
    if (Array.isArray(s.prefixItems) && index < s.prefixItems.length) found.push(pos(child(m, 'prefixItems', index)));
    else if ('items' in s) found.push(pos(child(m, 'items')));
  }
  return found;
}

export function arrayLeaf(host: BuildHost, members: readonly Located[], ctx: Ctx): Leaf | null {
  let minItems = 0;
  let maxItems = Infinity;
  let unique = false;
  let prefixLength = 0;
  for (const m of members) {
    const s = m.schema;
    if (!isSchemaObject(s)) continue;
    if (typeof s.minItems === 'number') minItems = Math.max(minItems, s.minItems);
    if (typeof s.maxItems === 'number') maxItems = Math.min(maxItems, s.maxItems);
    if (s.uniqueItems === true) unique = true;
    if (Array.isArray(s.prefixItems)) prefixLength = Math.max(prefixLength, s.prefixItems.length);
  }
  const cap = Math.min(maxItems, Math.max(minItems, host.maxItems));
  if (minItems > cap) return null;
  if (prefixLength === 0) {
    const item = host.build(itemConstraints(members, 0), ctx);
    // Items out of depth budget: only the empty array terminates.
    if (item === null) return minItems === 0 ? { arb: fc.constant([]), exact: true } : null;
    const arb = unique
      ? fc.uniqueArray(item, { minLength: minItems, maxLength: cap, selector: canonicalJson })
      : fc.array(item, { minLength: minItems, maxLength: cap });
    return { arb, exact: true };
  }
  const positions: fc.Arbitrary<unknown>[] = [];
  for (let i = 0; i <= prefixLength && i < cap; i++) {
    const item = host.build(itemConstraints(members, i), ctx);
    if (item === null) break;
    positions.push(item);
  }
  const longest = positions.length > prefixLength ? cap : positions.length;
  if (minItems > longest) return null;
  const arb = fc.integer({ min: minItems, max: longest }).chain((length) =>
    fc.tuple(...Array.from({ length }, (_, i) => positions[Math.min(i, prefixLength)])),
  );
  return { arb, exact: !unique };
}
