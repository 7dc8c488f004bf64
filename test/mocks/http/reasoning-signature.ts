// The signature a provider puts on the model's reasoning (a messages API thinking block, a converse
// reasoning block) and checks when a later request sends the block back: the mocks sign the text
// with a secret of their own, so a block whose text was changed is refused as the services refuse it.
import { createHmac, timingSafeEqual } from 'node:crypto';

const SECRET = 'mock-reasoning-signing-key';

export function reasoningSignature(text: string): string {
  return createHmac('sha256', SECRET).update(text).digest('base64');
}

/** Whether `signature` is the one the mocks made over `text`. */
export function signsReasoning(signature: unknown, text: unknown): boolean {
  if (typeof signature !== 'string' || typeof text !== 'string') return false;
  const expected = Buffer.from(reasoningSignature(text));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
