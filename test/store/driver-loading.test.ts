// The pg driver loads only when a PostgreSQL URL is configured: the SQLite default (`gateway serve`
// without DATABASE_URL) never pays its memory. Each case opens a store in a fresh Node process whose
// resolve hook records every module that process loads.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import type { OpenStoreOptions } from '../../runtime/store/open-store.ts';
import { createLocation } from './backends.ts';
import { RECORD_LOADED_MODULES } from '../support/loaded-modules.ts';

const OPEN_STORE = new URL('../../runtime/store/open-store.ts', import.meta.url).href;
const PG_DRIVER = /\/node_modules\/pg(-[a-z-]+)?\//;
const temp = mkdtempSync(join(tmpdir(), 'gateway-driver-loading-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const SCRIPT = `${RECORD_LOADED_MODULES}
const { openGatewayStore } = await import(${JSON.stringify(OPEN_STORE)});
const store = await openGatewayStore(JSON.parse(process.env.STORE_OPTIONS));
const backend = store.backend;
await store.close();
process.stdout.write(JSON.stringify({ backend, loaded: [...loaded] }));
`;

async function openInFreshProcess(options: OpenStoreOptions): Promise<{ backend: string; loaded: string[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', SCRIPT], {
    env: { ...process.env, STORE_OPTIONS: JSON.stringify(options) },
    timeout: 20_000,
  });
  return JSON.parse(stdout);
}

it('the SQLite default loads no part of the pg driver', async () => {
  const { backend, loaded } = await openInFreshProcess({ dataDir: join(temp, 'data') });
  expect(backend).toBe('sqlite');
  expect(loaded.some((url) => url.endsWith('/runtime/store/sqlite/database.ts'))).toBe(true);
  expect(loaded.filter((url) => PG_DRIVER.test(url))).toEqual([]);
});

it('a PostgreSQL URL loads the driver (the hook sees it)', async () => {
  const location = await createLocation('postgres');
  try {
    const { backend, loaded } = await openInFreshProcess({ databaseUrl: location.databaseUrl });
    expect(backend).toBe('postgres');
    expect(loaded.some((url) => PG_DRIVER.test(url))).toBe(true);
  } finally {
    await location.remove();
  }
});
