// The messages API's token count for a model cloud B answers as a chat (Gemini): the generateContent
// body its translation makes, counted by the service's own `:countTokens`, answered in the messages
// API's shape (`{"input_tokens": totalTokens}`), its refusals too. The count's body holds what
// countTokens reads (contents, system instruction, tools, generation config): a tool choice is no
// member of it (the service refuses unknown members), and changes no count.
import { tokenCountAnswer } from '../shared/token-count-answer.ts';
import type { ResponseMapping } from '../types.ts';
import type { GenerateContentRequest } from './request.ts';

export function countTokensBody(request: GenerateContentRequest): Buffer {
  const { toolConfig: _choice, ...counted } = request;
  return Buffer.from(JSON.stringify(counted));
}

export function countTokensResponse(provider: string, observe: (status: number) => void, error: NonNullable<ResponseMapping['error']>): ResponseMapping {
  return tokenCountAnswer(provider, 'totalTokens', error, observe);
}
