// The mustache subset prompt templates use: variables `{{name}}` (also `{{{name}}}` and `{{& name}}`,
// the same thing here: prompts are not HTML, so nothing is escaped), dotted names, sections
// `{{#name}}…{{/name}}`, inverted sections `{{^name}}…{{/name}}` and comments `{{! … }}`. Partials and
// delimiter changes are refused when the template is saved. A variable that resolves to nothing is
// reported as missing (the render endpoint answers 400 naming it); a section over a missing name is
// simply false, which is how templates say "optional".

export type TemplateNode =
  | { kind: 'text'; text: string }
  | { kind: 'variable'; name: string }
  | { kind: 'section'; name: string; inverted: boolean; children: TemplateNode[] };

export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError';
  /** Character offset of the offending tag in the template text. */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

/** Sections nest at most this deep: rendering recurses once per level. */
export const MAX_SECTION_DEPTH = 32;
/** Rendering stops past this many characters: sections over arrays multiply the output. */
export const MAX_RENDERED_LENGTH = 4_000_000;
/** Template nodes visited while rendering, at most: bounds work that renders nothing (empty sections nested over lists). */
export const MAX_RENDER_STEPS = 200_000;

const NAME = /^(\.|[^\s{}#^/!&>=][^\s{}]*)$/;

export function parseTemplate(source: string): TemplateNode[] {
  const root: TemplateNode[] = [];
  const open: Array<{ name: string; offset: number; children: TemplateNode[] }> = [];
  let children = root;
  let pos = 0;
  while (pos < source.length) {
    const start = source.indexOf('{{', pos);
    if (start === -1) {
      children.push({ kind: 'text', text: source.slice(pos) });
      break;
    }
    if (start > pos) children.push({ kind: 'text', text: source.slice(pos, start) });
    const triple = source.startsWith('{{{', start);
    const closer = triple ? '}}}' : '}}';
    const end = source.indexOf(closer, start + (triple ? 3 : 2));
    if (end === -1) throw new TemplateSyntaxError(`The tag at offset ${start} is never closed with "${closer}".`, start);
    const inner = source.slice(start + (triple ? 3 : 2), end);
    pos = end + closer.length;
    const sigil = triple ? '{' : inner.trimStart().charAt(0);
    const body = triple ? inner.trim() : '#^/!&>='.includes(sigil) && sigil !== '' ? inner.trimStart().slice(1).trim() : inner.trim();
    switch (sigil) {
      case '!':
        continue;
      case '>':
        throw new TemplateSyntaxError(`Partials ({{> ${body}}}) are not supported in prompt templates.`, start);
      case '=':
        throw new TemplateSyntaxError('Changing the delimiters ({{= … =}}) is not supported in prompt templates.', start);
      case '#':
      case '^': {
        const name = checkName(body, start);
        if (open.length >= MAX_SECTION_DEPTH) throw new TemplateSyntaxError(`Sections nest more than ${MAX_SECTION_DEPTH} deep.`, start);
        const section: TemplateNode = { kind: 'section', name, inverted: sigil === '^', children: [] };
        children.push(section);
        open.push({ name, offset: start, children });
        children = section.children;
        continue;
      }
      case '/': {
        const name = checkName(body, start);
        const top = open.pop();
        if (top === undefined) throw new TemplateSyntaxError(`{{/${name}}} closes a section that was never opened.`, start);
        if (top.name !== name) throw new TemplateSyntaxError(`{{/${name}}} closes the section {{#${top.name}}} opened at offset ${top.offset}.`, start);
        children = top.children;
        continue;
      }
      default:
        children.push({ kind: 'variable', name: checkName(body, start) });
    }
  }
  const unclosed = open.pop();
  if (unclosed !== undefined) throw new TemplateSyntaxError(`The section {{#${unclosed.name}}} at offset ${unclosed.offset} is never closed.`, unclosed.offset);
  return root;
}

function checkName(name: string, offset: number): string {
  if (!NAME.test(name)) throw new TemplateSyntaxError(name === '' ? `The tag at offset ${offset} names no variable.` : `"${name}" at offset ${offset} is not a variable name.`, offset);
  return name;
}

/** Names the template reads, in order of first use (section names included). */
export function templateVariables(nodes: readonly TemplateNode[], found: string[] = []): string[] {
  for (const node of nodes) {
    if (node.kind === 'text') continue;
    if (node.name !== '.' && !found.includes(node.name)) found.push(node.name);
    if (node.kind === 'section') templateVariables(node.children, found);
  }
  return found;
}

export class RenderTooLargeError extends Error {
  override readonly name = 'RenderTooLargeError';
}

/** Renders against `view`; `missing` collects variable names that resolved to nothing (each once). */
export function renderNodes(nodes: readonly TemplateNode[], view: unknown, missing: Set<string>): string {
  const out: string[] = [];
  const state = { length: 0, steps: 0 };
  renderInto(nodes, [view], missing, out, state);
  return out.join('');
}

function renderInto(nodes: readonly TemplateNode[], stack: unknown[], missing: Set<string>, out: string[], state: { length: number; steps: number }): void {
  for (const node of nodes) {
    // Nested sections multiply: 24 levels over a 2-item list is 2^24 visits that output nothing.
    if (++state.steps > MAX_RENDER_STEPS) throw new RenderTooLargeError(`Rendering the prompt takes more than ${MAX_RENDER_STEPS} steps (nested sections over lists multiply).`);
    let piece = '';
    if (node.kind === 'text') piece = node.text;
    else if (node.kind === 'variable') {
      const found = lookup(node.name, stack);
      if (!found.ok) missing.add(node.name);
      else piece = format(found.value);
    } else {
      const found = lookup(node.name, stack);
      const value = found.ok ? found.value : undefined;
      const empty = !value || (Array.isArray(value) && value.length === 0);
      if (node.inverted) {
        if (empty) renderInto(node.children, stack, missing, out, state);
      } else if (!empty) {
        const items = Array.isArray(value) ? value : [value];
        for (const item of items) renderInto(node.children, [...stack, item], missing, out, state);
      }
      continue;
    }
    state.length += piece.length;
    if (state.length > MAX_RENDERED_LENGTH) throw new RenderTooLargeError(`The rendered prompt is longer than ${MAX_RENDERED_LENGTH} characters.`);
    out.push(piece);
  }
}

/** Mustache lookup: the innermost context holding the first name part, then the rest of the path (own properties only). */
function lookup(name: string, stack: readonly unknown[]): { ok: true; value: unknown } | { ok: false } {
  if (name === '.') return { ok: true, value: stack[stack.length - 1] };
  const parts = name.split('.');
  for (let i = stack.length - 1; i >= 0; i--) {
    const context = stack[i];
    if (!isRecord(context) || !Object.hasOwn(context, parts[0])) continue;
    let value: unknown = context[parts[0]];
    for (const part of parts.slice(1)) {
      if (!isRecord(value) || !Object.hasOwn(value, part)) return { ok: false };
      value = value[part];
    }
    return value === undefined ? { ok: false } : { ok: true, value };
  }
  return { ok: false };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function format(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
