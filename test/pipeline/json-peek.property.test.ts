// peekMember reads one top-level member of a JSON object by scanning, not parsing: for any JSON
// object, in any layout, it gives what a full parse gives for that key, and a key that only occurs
// deeper down (or inside a string) is never taken for a top-level one.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { peekLeadingAndTrailing, peekMember, peekMemberInTail, peekMembers, peekTrailingMember } from '../../runtime/pipeline/log/json-peek.ts';
import { newRecordId, newTraceId } from '../../runtime/core/request-record.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const key = fc.constantFrom('model', 'usage', 'id', 'x', 'model2', 'modèle');
const object = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });

describe('peekMember', () => {
  test.prop([object, key, fc.constantFrom(undefined, 2, '\t')], { numRuns: 300 })('equals a full parse for every top-level key, in any layout', (value, wanted, indent) => {
    const body = Buffer.from(JSON.stringify(value, null, indent));
    const expected = Object.hasOwn(value, wanted) ? parseJson(JSON.stringify(value[wanted])) : undefined;
    expect(peekMember(body, wanted)).toEqual(expected);
  });

  test.prop([fc.jsonValue({ maxDepth: 2 }), key], { numRuns: 200 })('never takes a nested key or a string for a top-level one', (nested, wanted) => {
    const body = Buffer.from(JSON.stringify({ outer: { [wanted]: nested }, text: `"${wanted}": 1`, list: [{ [wanted]: nested }] }));
    expect(peekMember(body, wanted)).toBeUndefined();
  });

  test.prop([fc.string(), key], { numRuns: 200 })('never throws on text that is not JSON', (text, wanted) => {
    expect(() => peekMember(Buffer.from(text), wanted)).not.toThrow();
  });
});

/** What a full parse gives for `wanted` (a copy, as JSON text would give it), undefined when absent. */
function parsed(value: Record<string, unknown>, wanted: string): unknown {
  return Object.hasOwn(value, wanted) ? parseJson(JSON.stringify(value[wanted])) : undefined;
}

describe('peekMembers', () => {
  test.prop([object, fc.uniqueArray(key, { minLength: 1, maxLength: 4 }), fc.constantFrom(undefined, 2, '\t')], { numRuns: 300 })('equals a full parse for each of several keys, in one scan, in any layout', (value, wanted, indent) => {
    const body = Buffer.from(JSON.stringify(value, null, indent));
    expect(peekMembers(body, wanted)).toEqual(wanted.map((k) => parsed(value, k)));
  });

  // A value that holds the other wanted keys must be skipped whole once read: they are not top-level.
  test.prop([key, key, fc.jsonValue({ maxDepth: 2 })], { numRuns: 200 })('never takes a key inside a member it already read for a top-level one', (first, second, nested) => {
    fc.pre(first !== second);
    const body = Buffer.from(JSON.stringify({ [first]: { [second]: nested, list: [{ [second]: nested }] }, text: `"${second}": 1` }));
    expect(peekMembers(body, [first, second])).toEqual([{ [second]: parseJson(JSON.stringify(nested)), list: [{ [second]: parseJson(JSON.stringify(nested)) }] }, undefined]);
  });

  test.prop([object, fc.array(key, { minLength: 1, maxLength: 4 })], { numRuns: 200 })('gives a key asked for more than once its value each time', (value, wanted) => {
    expect(peekMembers(Buffer.from(JSON.stringify(value)), wanted)).toEqual(wanted.map((k) => parsed(value, k)));
  });

  test.prop([fc.string(), fc.uniqueArray(key, { minLength: 1, maxLength: 3 })], { numRuns: 200 })('never throws on text that is not JSON', (text, wanted) => {
    expect(() => peekMembers(Buffer.from(text), wanted)).not.toThrow();
  });
});

describe('peekLeadingAndTrailing', () => {
  // Short answers take one scan, long ones (2 KB and more) the two searches: the same values either way.
  test.prop([object, key, key, fc.integer({ min: 0, max: 3000 }), fc.constantFrom(undefined, 2)], { numRuns: 300 })('equals a full parse for both keys, short body or long', (value, leading, trailing, pad, indent) => {
    const full = { aa: 'x'.repeat(pad), ...value };
    const body = Buffer.from(JSON.stringify(full, null, indent));
    expect(peekLeadingAndTrailing(body, leading, trailing)).toEqual([parsed(full, leading), parsed(full, trailing)]);
  });
});

// The same properties for the search from the end, plus layouts made to mislead it: the key again,
// nested, after the top-level one, quoted inside a string value, and ending a longer key's name.
describe('peekTrailingMember', () => {
  test.prop([object, key, fc.constantFrom(undefined, 2, '\t')], { numRuns: 300 })('equals a full parse for every top-level key, in any layout', (value, wanted, indent) => {
    const body = Buffer.from(JSON.stringify(value, null, indent));
    const expected = Object.hasOwn(value, wanted) ? parseJson(JSON.stringify(value[wanted])) : undefined;
    expect(peekTrailingMember(body, wanted)).toEqual(expected);
  });

  // A long first member makes the body long enough for the search from the end (2 KB and more).
  test.prop([object, key, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, 2), fc.integer({ min: 0, max: 3000 })], { numRuns: 300 })('is not misled by the key nested or quoted after the top-level one', (value, wanted, nested, indent, pad) => {
    const body = Buffer.from(JSON.stringify({ aa: 'x'.repeat(pad), ...value, zz: { [wanted]: nested }, list: [{ [wanted]: nested }], text: `x,"${wanted}": 1}`, [`x"${wanted}`]: [nested] }, null, indent));
    const expected = Object.hasOwn(value, wanted) ? parseJson(JSON.stringify(value[wanted])) : undefined;
    expect(peekTrailingMember(body, wanted)).toEqual(expected);
  });

  test.prop([object, key, fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 })], { numRuns: 200 })('reads the key however far from either end it is', (value, wanted, before, after) => {
    const body = Buffer.from(JSON.stringify({ aa: 'x'.repeat(before), ...value, zz: 'x'.repeat(after) }));
    const expected = Object.hasOwn(value, wanted) ? parseJson(JSON.stringify(value[wanted])) : undefined;
    expect(peekTrailingMember(body, wanted)).toEqual(expected);
  });

  test.prop([fc.string(), key], { numRuns: 200 })('never throws on text that is not JSON', (text, wanted) => {
    expect(() => peekTrailingMember(Buffer.from(text), wanted)).not.toThrow();
  });
});

describe('record ids', () => {
  test.prop([fc.array(fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }), { minLength: 2, maxLength: 50 })])('are unique and sort by time', (times) => {
    const sorted = [...times].sort((a, b) => a - b);
    const ids = sorted.map((t) => newRecordId(t));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) if (sorted[i] > sorted[i - 1]) expect(ids[i] > ids[i - 1]).toBe(true);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test.prop([fc.array(fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }), { minLength: 2, maxLength: 50 })])('generated trace ids are UUID version 7: unique, and later milliseconds sort after earlier ones', (times) => {
    const sorted = [...times].sort((a, b) => a - b);
    const ids = sorted.map((t) => newTraceId(t));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) if (sorted[i] > sorted[i - 1]) expect(ids[i] > ids[i - 1]).toBe(true);
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(sorted[i]);
    }
  });
});

describe('peekMemberInTail', () => {
  // The end of an object whose start is gone (cut anywhere before the member and the comma before
  // it): its last top-level member is read; a key that is not a top-level member at the end is never
  // taken for one.
  test.prop([fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }), fc.nat(), fc.constantFrom(undefined, 2)], { numRuns: 300 })('reads the last top-level member from any suffix that holds it', (before, usage, cut, indent) => {
    const text = JSON.stringify({ data: before, usage }, null, indent);
    // Cut anywhere up to the comma that shows the member is one (an answer's kept end is 64 KB, its usage a few hundred bytes).
    const comma = text.lastIndexOf(',', text.lastIndexOf('"usage"'));
    const suffix = Buffer.from(text.slice(cut % (comma + 1)));
    expect(peekMemberInTail(suffix, 'usage')).toEqual(parseJson(JSON.stringify(usage)));
  });

  test.prop([fc.jsonValue({ maxDepth: 2 }), fc.nat()], { numRuns: 200 })('never takes a nested or earlier member', (nested, cut) => {
    const text = JSON.stringify({ usage: 1, data: [{ usage: nested }], tail: { usage: nested } });
    const suffix = Buffer.from(text.slice(cut % text.length));
    expect(peekMemberInTail(suffix, 'usage')).toBeUndefined();
  });
});

