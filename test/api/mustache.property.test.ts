// The prompt template language: properties against a reference (text and variables concatenate;
// sections and inverted sections choose; missing variables are exactly the ones not given), plus
// the syntax errors a saved template is refused for.
import { fc, test as propTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { MAX_RENDER_STEPS, MAX_RENDERED_LENGTH, MAX_SECTION_DEPTH, parseTemplate, renderNodes, RenderTooLargeError, TemplateSyntaxError, templateVariables } from '../../runtime/pipeline/prompt/mustache.ts';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const params = { numRuns: 200, seed };

/** Text that cannot open a tag: no `{{`, and no trailing `{` that a following tag would extend. */
const text = fc.string({ maxLength: 12 }).map((s) => s.replaceAll('{', '(').replaceAll('}', ')'));
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/);
const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }));

type Part = { text: string } | { variable: string; style: number };
const part: fc.Arbitrary<Part> = fc.oneof(text.map((t) => ({ text: t })), fc.record({ variable: name, style: fc.integer({ min: 0, max: 3 }) }));

function source(parts: Part[]): string {
  return parts
    .map((p) => ('text' in p ? p.text : [`{{${p.variable}}}`, `{{ ${p.variable} }}`, `{{{${p.variable}}}}`, `{{& ${p.variable}}}`][p.style]))
    .join('');
}

function format(v: unknown): string {
  return v === null ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

describe('mustache prompt templates', () => {
  propTest.prop([fc.array(part, { maxLength: 12 }), fc.dictionary(name, value)], params)(
    'renders text and variables like the reference, and reports exactly the missing names',
    (parts, variables) => {
      const missing = new Set<string>();
      const out = renderNodes(parseTemplate(source(parts)), variables, missing);
      const expectedMissing = new Set(parts.flatMap((p) => ('variable' in p && !Object.hasOwn(variables, p.variable) ? [p.variable] : [])));
      expect(missing).toEqual(expectedMissing);
      const expected = parts.map((p) => ('text' in p ? p.text : Object.hasOwn(variables, p.variable) ? format(variables[p.variable]) : '')).join('');
      expect(out).toBe(expected);
      expect(templateVariables(parseTemplate(source(parts)))).toEqual([...new Set(parts.flatMap((p) => ('variable' in p ? [p.variable] : [])))]);
    },
  );

  propTest.prop([text, text, name, fc.oneof(value, fc.constant(undefined))], params)('a section shows its content when the value is truthy, an inverted one when not', (inside, outside, key, v) => {
    const variables = v === undefined ? {} : { [key]: v };
    const falsy = !v || (Array.isArray(v) && v.length === 0);
    const times = falsy ? 0 : Array.isArray(v) ? v.length : 1;
    const missing = new Set<string>();
    expect(renderNodes(parseTemplate(`${outside}{{#${key}}}${inside}{{/${key}}}`), variables, missing)).toBe(outside + inside.repeat(times));
    expect(renderNodes(parseTemplate(`{{^${key}}}${inside}{{/${key}}}${outside}`), variables, missing)).toBe((falsy ? inside : '') + outside);
    expect(missing.size).toBe(0);
  });

  it('iterates lists with the item as context, falling back to outer names; dotted names and `.`', () => {
    const view = { user: { name: 'Ada', langs: ['en', 'fr'] }, items: [{ n: 1 }, { n: 2, label: 'two' }], label: 'outer', tags: ['a', 'b'] };
    const render = (t: string) => {
      const missing = new Set<string>();
      const out = renderNodes(parseTemplate(t), view, missing);
      return { out, missing: [...missing] };
    };
    expect(render('Hi {{user.name}} ({{user.langs}})').out).toBe('Hi Ada (["en","fr"])');
    expect(render('{{#items}}[{{n}}:{{label}}]{{/items}}').out).toBe('[1:outer][2:two]');
    expect(render('{{#tags}}<{{.}}>{{/tags}}').out).toBe('<a><b>');
    expect(render('{{#user}}{{name}}{{/user}}').out).toBe('Ada');
    expect(render('{{! a comment }}x{{user.missing}}{{nope.deeper}}')).toEqual({ out: 'x', missing: ['user.missing', 'nope.deeper'] });
  });

  it('never reads inherited properties: prototype names are missing variables', () => {
    const missing = new Set<string>();
    expect(renderNodes(parseTemplate('{{constructor}}{{toString}}{{__proto__}}{{a.constructor}}'), { a: {} }, missing)).toBe('');
    expect([...missing]).toEqual(['constructor', 'toString', '__proto__', 'a.constructor']);
  });

  it.each([
    ['Hello {{name', /never closed/],
    ['{{#a}}x', /never closed/],
    ['{{/a}}', /never opened/],
    ['{{#a}}{{/b}}', /closes the section \{\{#a\}\}/],
    ['{{> partial}}', /Partials/],
    ['{{=<% %>=}}', /delimiters/],
    ['{{}}', /names no variable/],
    ['{{a b}}', /not a variable name/],
    ['{{#a}}'.repeat(MAX_SECTION_DEPTH + 1) + '{{/a}}'.repeat(MAX_SECTION_DEPTH + 1), /nest more than/],
  ])('refuses %s', (template, message) => {
    expect(() => parseTemplate(template)).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate(template)).toThrow(message);
  });

  it('stops rendering output that multiplies past the limit', () => {
    const big = Array.from({ length: 2000 }, (_, i) => i);
    const template = parseTemplate('{{#l}}{{#l}}xx{{/l}}{{/l}}');
    expect(() => renderNodes(template, { l: big }, new Set())).toThrow(RenderTooLargeError);
    expect(MAX_RENDERED_LENGTH).toBeLessThan(2000 * 2000 * 2);
  });
});

describe('render work is bounded', () => {
  it('refuses nested sections that multiply past the step bound, quickly, even when they render nothing', () => {
    const depth = 24;
    const source = `${'{{#l}}'.repeat(depth)}${'{{/l}}'.repeat(depth)}`;
    const nodes = parseTemplate(source);
    const started = performance.now();
    expect(() => renderNodes(nodes, { l: [1, 2] }, new Set())).toThrow(RenderTooLargeError);
    expect(performance.now() - started).toBeLessThan(500);
    expect(renderNodes(parseTemplate('{{#l}}{{.}}{{/l}}'), { l: [1, 2] }, new Set())).toBe('12');
    expect(MAX_RENDER_STEPS).toBeGreaterThan(1000);
  });
});
