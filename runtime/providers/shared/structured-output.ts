// The chat API's structured outputs, for the families that enforce them their own way: an answer
// matching a JSON schema (`response_format` of type `json_schema`: the messages API's
// `output_config.format`, converse's `outputConfig.textFormat`, generateContent's
// `responseJsonSchema`) and a function tool whose arguments must match its parameters
// (`function.strict`: a messages API tool's and a converse toolSpec's `strict`). A family that cannot
// enforce one refuses it: a guarantee dropped on the way would be a silent lie.
import { GatewayError } from '../../core/errors.ts';
import type { ChatRequest } from './chat.ts';

/** The schema an answer must match, as a chat request's `response_format.json_schema` gives it. */
export interface AnswerSchema {
  schema: Record<string, unknown>;
  name?: string;
  description?: string;
}

/**
 * A chat request's answer schema: undefined for text (or no format); `json_schema` its schema, which
 * it must give. `json_object` (any JSON, no schema) is refused: these families constrain an answer
 * to a schema only.
 */
export function answerSchemaOf(chat: ChatRequest, provider: string): AnswerSchema | undefined {
  const format = chat.response_format as { type?: unknown; json_schema?: { schema?: unknown; name?: unknown; description?: unknown } | null } | null | undefined;
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type !== 'json_schema') {
    throw new GatewayError('unsupported_parameter', `The provider "${provider}" has no response_format "${String(format.type)}": it constrains an answer to a JSON schema only (json_schema).`, 'response_format');
  }
  const schema = format.json_schema?.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new GatewayError('invalid_request_body', 'Invalid request body: a response_format of type json_schema needs its schema (json_schema.schema, an object).', '/response_format/json_schema/schema');
  }
  const { name, description } = format.json_schema!;
  return {
    schema: schema as Record<string, unknown>,
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof description === 'string' ? { description } : {}),
  };
}

/** Whether a chat tool's arguments must match its parameters. */
export function isStrict(tool: { function: { strict?: boolean | null } }): boolean {
  return tool.function.strict === true;
}

/** Refuses a strict tool, for a family with no way to enforce its arguments' schema. */
export function refuseStrictTools(chat: ChatRequest, provider: string): void {
  chat.tools?.forEach((tool, i) => {
    if (isStrict(tool)) {
      throw new GatewayError('unsupported_parameter', `The provider "${provider}" does not enforce a tool's parameters on the arguments it calls it with: leave strict out or set it to false.`, `/tools/${i}/function/strict`);
    }
  });
}
