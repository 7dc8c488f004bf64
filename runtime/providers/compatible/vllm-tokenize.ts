// The messages API's token count for a model a vLLM server answers as a chat: the server's own
// `POST /tokenize` (at its root, beside `/v1`) takes a chat's messages and tools as its chat
// completion does and counts them with the model's tokenizer and chat template, the generation
// prompt included: the prompt tokens that chat would report. The chat's other members shape the
// answer (its limit, sampling, format, tool choice) and are not sent; `/tokenize` takes none of them.
import { tokenCountAnswer } from '../shared/token-count-answer.ts';
import { joinUrl } from '../shared/url.ts';
import type { ChatTokenCount } from '../shared/vendor-shaped.ts';

export const VLLM_TOKENIZE: ChatTokenCount = {
  // `http://host:8000/v1` → `http://host:8000/tokenize`; a base without `/v1` is the server's root.
  url: (base) => joinUrl(base.replace(/\/+$/, '').replace(/\/v1$/, ''), '/tokenize'),
  body: (chat) => Buffer.from(JSON.stringify({ model: chat.model, messages: chat.messages, ...(chat.tools === undefined ? {} : { tools: chat.tools }) })),
  response: (provider, error) => tokenCountAnswer(provider, 'count', error),
};
