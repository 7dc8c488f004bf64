// POST /tokenize (at the server's root, as a vLLM server has it; the vendor mock stands in for such a
// server at a custom_host): a chat's messages, and its tools, counted as the mock's chat counts the
// same messages' prompt, so a count agrees with the usage of the chat it stands for.
// `{"count", "max_model_len", "tokens"}`, as vLLM answers.
import type { MockContext } from './context.ts';
import { jsonObject } from './context.ts';
import { promptTokensOfMessages } from './chat.ts';
import { badRequest, sendJson } from './respond.ts';

const MAX_MODEL_LEN = 32_768;

export async function tokenize(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request.');
  if (!Array.isArray(body.messages)) return badRequest(ctx, "Field required: 'messages' (or 'prompt').", 'messages');
  if (body.tools !== undefined && !Array.isArray(body.tools)) return badRequest(ctx, "Input should be a valid list: 'tools'.", 'tools');
  const { promptTokens } = promptTokensOfMessages(body.messages);
  return sendJson(ctx, 200, { count: promptTokens, max_model_len: MAX_MODEL_LEN, tokens: Array.from({ length: promptTokens }, (_, i) => i + 1) });
}
