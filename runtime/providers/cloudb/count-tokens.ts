// The messages API's token count for a model cloud B answers as a chat (Gemini): the generateContent
// body its translation makes, counted by the service's own `:countTokens`, answered in the messages
// API's shape (`{"input_tokens": totalTokens}`), its refusals too. The count's body holds what
// countTokens reads (contents, system instruction, tools, generation config): a tool choice is no
// member of it (the service refuses unknown members), and changes no count.
import { GatewayError } from '../../core/errors.ts';
import { messagesErrorOver } from '../shared/chat-as-messages.ts';
import type { ResponseMapping } from '../types.ts';
import type { GenerateContentRequest } from './request.ts';

export function countTokensBody(request: GenerateContentRequest): Buffer {
  const { toolConfig: _choice, ...counted } = request;
  return Buffer.from(JSON.stringify(counted));
}

export function countTokensResponse(provider: string, observe: (status: number) => void, error: NonNullable<ResponseMapping['error']>): ResponseMapping {
  return {
    provider,
    observe,
    json: (answer) => {
      const total = (answer as { totalTokens?: unknown } | null)?.totalTokens;
      if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) throw new GatewayError('provider_invalid_response', "The provider's token count has no totalTokens.", null, { provider });
      return { input_tokens: total };
    },
    error: messagesErrorOver(error),
  };
}
