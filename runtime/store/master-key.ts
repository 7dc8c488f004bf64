// The master key that seals virtual keys: GATEWAY_MASTER_KEY (32 bytes, base64 or hex) when set,
// else `master.key` in the data directory, generated on first start (mode 0600). Several gateway
// processes on one database must share it: set the variable on every host.
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const MASTER_KEY_ENV = 'GATEWAY_MASTER_KEY';
export const MASTER_KEY_FILE = 'master.key';

export interface MasterKey {
  key: Buffer;
  /** Short fingerprint written beside each sealed box, so a wrong key is named as such. */
  id: string;
  source: 'env' | 'file' | 'generated';
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

/** A 32-byte key written as hex or base64 (base64url too); anything else is refused, never stretched. */
export function masterKeyFrom(text: string, where: string): Buffer {
  const trimmed = text.trim();
  let key: Buffer | null = null;
  if (HEX_KEY.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (BASE64_KEY.test(trimmed)) key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key === null || key.length !== 32) throw new Error(`${where} must hold a 32-byte key, base64 or hex (for example: openssl rand -base64 32)`);
  return key;
}

export function fingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export async function loadMasterKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<MasterKey> {
  const fromEnv = env[MASTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    const key = masterKeyFrom(fromEnv, MASTER_KEY_ENV);
    return { key, id: fingerprint(key), source: 'env' };
  }
  const file = join(dataDir, MASTER_KEY_FILE);
  try {
    const key = masterKeyFrom(await readFile(file, 'utf8'), file);
    return { key, id: fingerprint(key), source: 'file' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  // Written whole under a name of its own, then linked into place: link() fails with EEXIST when the
  // name is taken, so of two processes starting at once on a fresh directory one key wins and the
  // other reads it. Creating master.key itself with `wx` and writing after left a moment when it was
  // empty, and a process reading it then refused to start.
  const draft = join(dataDir, `.${MASTER_KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(draft, `${key.toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = masterKeyFrom(await readFile(file, 'utf8'), file);
    return { key: existing, id: fingerprint(existing), source: 'file' };
  } finally {
    await rm(draft, { force: true });
  }
  return { key, id: fingerprint(key), source: 'generated' };
}
