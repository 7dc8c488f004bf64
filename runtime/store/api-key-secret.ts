// Key material. Keys are 32 random bytes, so a fast unsalted SHA-256 is the right storage hash:
// slow password hashes exist to resist guessing low-entropy secrets, and 256 random bits cannot be
// guessed; a fast hash also keeps verification cheap enough to run on every request.
import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'gw_';

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Lower-case hex SHA-256 of the key as sent (UTF-8). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
