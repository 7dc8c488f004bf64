// A provider's count of a chat's input tokens (cloud B's countTokens, the vendor's Responses input
// count, a vLLM server's tokenization) as the messages API's count: `{"input_tokens": n}` from the
// member of its answer that holds the count, its errors in that API's shape.
import { GatewayError } from '../../core/errors.ts';
import { messagesErrorOver } from './chat-as-messages.ts';
import type { ResponseMapping } from '../types.ts';

export function tokenCountAnswer(provider: string, member: string, error: NonNullable<ResponseMapping['error']>, observe?: (status: number) => void): ResponseMapping {
  return {
    provider,
    ...(observe === undefined ? {} : { observe }),
    json: (answer) => {
      const counted = (answer as Record<string, unknown> | null)?.[member];
      if (typeof counted !== 'number' || !Number.isInteger(counted) || counted < 0) throw new GatewayError('provider_invalid_response', `The provider's token count has no ${member}.`, null, { provider });
      return { input_tokens: counted };
    },
    error: messagesErrorOver(error),
  };
}
