// The Redis client (ioredis) loads only when REDIS_URL is set, and jose only when a jwt check runs: a
// gateway that uses neither never holds their modules. Each case runs `gateway serve` in a fresh Node process whose resolve hook records
// every module that process loads, until the server listens.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { RECORD_LOADED_MODULES } from '../support/loaded-modules.ts';

const SERVE = new URL('../../runtime/cli/serve.ts', import.meta.url).href;
const IOREDIS = /\/node_modules\/ioredis\//;
const JOSE = /\/node_modules\/jose\//;
const temp = mkdtempSync(join(tmpdir(), 'gateway-serve-modules-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const SCRIPT = `${RECORD_LOADED_MODULES}
const { runServe } = await import(${JSON.stringify(SERVE)});
const write = process.stdout.write.bind(process.stdout);
let listening;
const ready = new Promise((resolve) => (listening = resolve));
process.stdout.write = (chunk) => { if (String(chunk).includes('listening')) listening(); return true; };
const done = runServe(['--port', '0', '--host', '127.0.0.1', '--no-watch', '--data', process.env.DATA_DIR]);
await ready;
const atStart = [...loaded];
process.kill(process.pid, 'SIGTERM');
const code = await done;
write(JSON.stringify({ code, loaded: atStart }));
`;

async function serveInFreshProcess(dataDir: string, redisUrl: string | null): Promise<{ code: number; loaded: string[] }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.REDIS_URL;
  if (redisUrl !== null) env.REDIS_URL = redisUrl;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', SCRIPT], { env, timeout: 30_000 });
  return JSON.parse(stdout);
}

it('a gateway without REDIS_URL loads no part of the Redis client, nor jose while no config has a jwt check', async () => {
  const { code, loaded } = await serveInFreshProcess(join(temp, 'plain'), null);
  expect(code).toBe(0);
  expect(loaded.some((url) => url.endsWith('/runtime/api/hot-state.ts'))).toBe(true);
  expect(loaded.some((url) => url.endsWith('/guardrails/checks/jwt.ts'))).toBe(true);
  expect(loaded.filter((url) => IOREDIS.test(url) || JOSE.test(url))).toEqual([]);
}, 40_000);

it('REDIS_URL loads it (the hook sees it)', async () => {
  const { code, loaded } = await serveInFreshProcess(join(temp, 'redis'), process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  expect(code).toBe(0);
  expect(loaded.some((url) => IOREDIS.test(url))).toBe(true);
}, 40_000);
