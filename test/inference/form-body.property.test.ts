// runtime/core/form-body.ts: a form's text fields are its parameters, and override_params rewrite
// them without touching a file's bytes. Properties over generated forms and overrides, checked by
// reading the written form back with the upload reader.
import { fc, test } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { encodeForm, formParams, formParts, overriddenForm } from '../../runtime/core/form-body.ts';
import { formTextField, type FormPart } from '../../runtime/core/multipart.ts';
import { GatewayError } from '../../runtime/core/errors.ts';

const RUNS = { numRuns: 200, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) };
const BOUNDARY = 'form-body-test-Zq81';

const fieldName = fc.constantFrom('model', 'language', 'prompt', 'temperature', 'timestamp_granularities[]', 'na"me', 'back\\slash');
const bytes = fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)).filter((b) => !b.includes(`--${BOUNDARY}`));
const text = fc.string({ maxLength: 40 }).filter((t) => !t.includes(`--${BOUNDARY}`));
const field = fc.record({ name: fieldName, filename: fc.constant(null), contentType: fc.constant(null), data: text.map((t) => Buffer.from(t)) });
const file = fc.record({ name: fc.constantFrom('file', 'image', 'mask'), filename: fc.constantFrom('a.wav', 'b "q".png'), contentType: fc.option(fc.constantFrom('audio/wav', 'image/png'), { nil: null }), data: bytes });
const form = fc.array(fc.oneof(field, file), { maxLength: 6 }).filter((parts) => {
  // A name is a field's or a file's, not both.
  const files = new Set<string>(parts.filter((p) => p.filename !== null).map((p) => p.name));
  return parts.every((p) => p.filename !== null || !files.has(p.name));
});
const overrideValue = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.constantFrom('a', 'b'), fc.integer(), { maxKeys: 2 }));
const overrides = fc.dictionary(fieldName, overrideValue, { maxKeys: 3 });

const shape = (parts: readonly FormPart[]) => parts.map((p) => ({ name: p.name, filename: p.filename, contentType: p.contentType, data: Buffer.from(p.data).toString('base64') }));

test.prop([form], RUNS)('a written form reads back as the same parts', (parts) => {
  expect(shape(formParts(encodeForm(parts, BOUNDARY), BOUNDARY))).toEqual(shape(parts));
});

test.prop([form, overrides], RUNS)('overrides replace, add or remove text fields; files and other fields stay as they were', (parts, given) => {
  const files = new Set<string>(parts.filter((p) => p.filename !== null).map((p) => p.name));
  fc.pre(Object.keys(given).every((name) => !files.has(name)));
  const { body, params } = overriddenForm(parts, BOUNDARY, given);
  const written = formParts(body, BOUNDARY);
  expect(formParams(written)).toEqual(params);
  // The reference: every field not overridden as it was; an overridden one once, as text; null gone.
  const expected: Record<string, string | string[]> = formParams(parts.filter((p) => p.filename === null && !Object.hasOwn(given, p.name)));
  for (const [name, value] of Object.entries(given)) {
    if (value !== null) expected[name] = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  expect(params).toEqual(expected);
  expect(shape(written.filter((p) => p.filename !== null))).toEqual(shape(parts.filter((p) => p.filename !== null)));
});

test.prop([form, fieldName], RUNS)('a text field found in place is the first field of that name the reader gives, files never matched', (parts, name) => {
  const first = parts.find((p) => p.name === name && p.filename === null);
  expect(formTextField(encodeForm(parts, BOUNDARY), BOUNDARY, name)).toBe(first === undefined ? null : first.data.toString('utf8'));
});

it('refuses overriding a file, a value holding the boundary, and a form that is not well-formed', () => {
  const parts: FormPart[] = [{ name: 'file', filename: 'a.wav', contentType: null, data: Buffer.from('x') }];
  expect(() => overriddenForm(parts, BOUNDARY, { file: 'y' })).toThrow(GatewayError);
  expect(() => overriddenForm(parts, BOUNDARY, { prompt: `a --${BOUNDARY} b` })).toThrow(/boundary/);
  expect(() => formParts(Buffer.from(`--${BOUNDARY}\r\nno colon\r\n\r\nx`), BOUNDARY)).toThrow(GatewayError);
});
