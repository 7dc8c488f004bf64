// Structured outputs as Claude serves them (the messages API, and converse relaying the model): an
// answer constrained to a JSON schema, and a strict tool's arguments constrained to its input
// schema, written the way a constrained model writes them (a value of each property's type), and
// the checks of the request the services make (a schema that is an object; models from Claude 4.5 on).

import { claudeVersionOf } from './claude-models.ts';

type Json = Record<string, any>;

/** A value matching `schema`, with `text` where it holds a string: every property given, an array with the items its minimum asks for. */
export function instanceOf(schema: Json, text: string): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) return instanceOf(schema.anyOf[0], text);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) out[name] = instanceOf(property, text);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(0, Number(schema.minItems ?? 0)) }, () => instanceOf((schema.items ?? {}) as Json, text));
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return text;
  }
}

/** Whether a Claude model is 4.5 or later (or of a line that began later), which structured outputs need. */
function takesStructuredOutputs(model: string): boolean {
  const { version, laterLine } = claudeVersionOf(model);
  return laterLine || version >= 405;
}

/** Why the model refuses this answer schema (`schema` as sent: null when none) or these tools' strict flags for `model`; null when it takes them. */
export function structuredOutputRefusal(model: string, schema: unknown, strictTools: unknown[]): string | null {
  const asked = schema !== null || strictTools.some((strict) => strict !== undefined);
  // Converse serves other models too, each with structured outputs of its own: the version rule is Claude's.
  if (asked && /claude/.test(model) && !takesStructuredOutputs(model)) return `Structured outputs are not supported on the model ${model}.`;
  if (schema !== null && (typeof schema !== 'object' || Array.isArray(schema))) return 'output_config.format.schema: Input should be a valid dictionary';
  if (strictTools.some((strict) => strict !== undefined && typeof strict !== 'boolean')) return 'tools.strict: Input should be a valid boolean';
  return null;
}
