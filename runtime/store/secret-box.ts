// AES-256-GCM sealing of a virtual key's secrets. The box is `v1:<key id>:<iv>:<tag>:<ciphertext>`
// (base64url); the record's ID is the additional data, so a box copied onto another record does
// not open, and a wrong master key is reported as such rather than as corrupt data.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from './master-key.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

const VERSION = 'v1';

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

function aad(recordId: string): Buffer {
  return Buffer.from(`virtual_key:${recordId}`, 'utf8');
}

export function seal(master: MasterKey, recordId: string, secrets: Readonly<Record<string, unknown>>): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', master.key, iv);
  cipher.setAAD(aad(recordId));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  return [VERSION, master.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
}

export function open(master: MasterKey, recordId: string, box: string): Record<string, unknown> {
  const parts = box.split(':');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('not a sealed box of a known version');
  const [, keyId, iv, tag, ciphertext] = parts;
  if (keyId !== master.id) throw new SecretBoxError(`sealed with master key ${keyId}, but this gateway has key ${master.id}`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', master.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(aad(recordId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return parseJson(plain.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new SecretBoxError('the sealed box does not open (tampered, or sealed for another record)');
  }
}
