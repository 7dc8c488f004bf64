// The `gateway` command, run as a real process: help, usage errors, key management, and `serve`
// with GATEWAY_API_KEY, keys surviving a restart, and a graceful stop on SIGTERM.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, tempDataDir } from './helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
// vitest runs on the project's Node 24 (the `node` dev dependency that `npx node` also resolves to).
const NODE = process.execPath;

function gateway(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(NODE, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('help and usage errors', () => {
  it('prints the overview for --help and help', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['help', '--help'], ['help', '-h']]) {
      const { code, stdout } = gateway(args);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: gateway <command>/);
      for (const command of ['compile', 'serve', 'keys']) expect(stdout).toContain(`  ${command} `);
    }
  });

  it('prints each command’s own help', () => {
    expect(gateway(['keys', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: gateway keys/) });
    expect(gateway(['help', 'keys'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: gateway keys/) });
    expect(gateway(['keys', 'create', '--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('create [--name N]') });
    expect(gateway(['serve', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: gateway serve/) });
    expect(gateway(['compile', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: gateway compile/) });
  });

  it('exits 2 with usage on stderr for unknown commands and bad flags', () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /Usage: gateway <command>/],
      [['launch'], /unknown command "launch"[\s\S]*Usage: gateway <command>/],
      [['help', 'launch'], /unknown command/],
      [['serve', '--bogus'], /Unknown option '--bogus'[\s\S]*Usage: gateway serve/],
      [['serve', '--port', '70000'], /--port must be an integer/],
      [['serve', 'extra'], /Usage: gateway serve/],
      [['keys'], /missing keys command[\s\S]*Usage: gateway keys/],
      [['keys', 'rotate'], /unknown keys command/],
      [['keys', 'create', '--scope', 'root'], /--scope must be admin or inference/],
      [['keys', 'create', '--name'], /argument missing/],
      [['keys', 'revoke'], /exactly one key ID/],
    ];
    for (const [args, stderr] of cases) {
      const result = gateway(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(stderr);
      expect(result.stdout).toBe('');
    }
  });
});

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exited: Promise<{ code: number | null; stderr: string }>;
}

function serve(dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(NODE, [BIN, 'serve', '--port', '0', '--data', dataDir], { env: { ...process.env, GATEWAY_API_KEY: '', ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const line = /^gateway listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (line !== null) resolve({ child, url: line[1], exited });
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code} before it was ready: ${stderr}`)));
  });
}

async function stop(served: Served): Promise<{ code: number | null; stderr: string }> {
  served.child.kill('SIGTERM');
  return served.exited;
}

describe('keys and serve', () => {
  const data = tempDataDir();
  const seed = 'gw_seeded-from-env-0123456789abcdefghijklmnop';
  let created: { key: string; id: string; scope: string };

  beforeAll(() => {
    const result = gateway(['keys', 'create', '--name', 'app', '--json', '--data', data.dir]);
    expect(result.code).toBe(0);
    created = JSON.parse(result.stdout);
  });

  afterAll(() => data.remove());

  const authenticated = (url: string, key: string) => send(url, { path: '/v1/models', headers: { 'x-gateway-api-key': key } });

  it('creates a key shown once and lists keys without secrets', () => {
    expect(created.key).toMatch(/^gw_/);
    expect(created.scope).toBe('inference');
    const text = gateway(['keys', 'create', '--data', data.dir, '--scope', 'admin', '--name', 'ops']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^key: +gw_[A-Za-z0-9_-]{43}$/m);
    expect(text.stderr).toContain('cannot be shown again');
    const listed = gateway(['keys', 'list', '--data', data.dir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID +NAME +SCOPE +CREATED +REVOKED$/m);
    expect(listed.stdout).toContain(created.id);
    expect(listed.stdout).not.toContain(created.key);
    expect(listed.stdout).not.toContain('gw_');
    const json = JSON.parse(gateway(['keys', 'list', '--json', '--data', data.dir]).stdout);
    expect(json.map((r: { name: string }) => r.name)).toEqual(['app', 'ops']);
    // The API's shape (schema/resources/api-key.json), snake_case, for scripts that use both.
    expect(Object.keys(json[0]).sort()).toEqual(['created_at', 'id', 'name', 'object', 'organisation_id', 'revoked_at', 'scope', 'workspace_id']);
  });

  it('list and revoke say there is no store where none is, and create none; a store that does not answer is said without a stack', () => {
    const empty = tempDataDir();
    try {
      for (const args of [['keys', 'list'], ['keys', 'revoke', created.id]]) {
        const result = gateway([...args, '--data', empty.dir], { DATABASE_URL: '' });
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(`gateway keys: no gateway store in ${empty.dir}: give the data folder \`gateway serve\` uses (--data DIR), or set DATABASE_URL to its PostgreSQL store.\n`);
        expect(existsSync(join(empty.dir, 'gateway.sqlite'))).toBe(false);
      }
      const down = gateway(['keys', 'list'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/^gateway keys: cannot open the PostgreSQL store: .*\n$/);
    } finally {
      empty.remove();
    }
  });

  it('serves with the GATEWAY_API_KEY seed and created keys, across a restart, and stops on SIGTERM', async () => {
    const first = await serve(data.dir, { GATEWAY_API_KEY: seed });
    expect((await send(first.url, { path: '/v1/health' })).status).toBe(200);
    expect((await authenticated(first.url, seed)).status).not.toBe(401);
    expect((await authenticated(first.url, created.key)).status).not.toBe(401);
    expect((await authenticated(first.url, 'gw_wrong')).status).toBe(401);
    const stopped = await stop(first);
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toContain('SIGTERM received');

    // Same data directory, no environment: both keys were stored, so both still work.
    const second = await serve(data.dir);
    expect((await authenticated(second.url, seed)).status).not.toBe(401);
    expect((await authenticated(second.url, created.key)).status).not.toBe(401);
    expect((await stop(second)).code).toBe(0);
  });

  it('revokes a key so the next server refuses it', async () => {
    expect(gateway(['keys', 'revoke', created.id, '--data', data.dir])).toMatchObject({ code: 0, stdout: expect.stringContaining(`revoked ${created.id}`) });
    expect(gateway(['keys', 'revoke', 'no-such-id', '--data', data.dir]).code).toBe(1);
    const served = await serve(data.dir);
    const res = await authenticated(served.url, created.key);
    expect(res.status).toBe(401);
    expect(res.json().error.code).toBe('invalid_gateway_api_key');
    expect((await stop(served)).code).toBe(0);
  });

  it('exits 1 with a message when it cannot listen', async () => {
    const served = await serve(data.dir);
    const port = new URL(served.url).port;
    const clash = gateway(['serve', '--port', port, '--data', data.dir]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/EADDRINUSE/);
    expect((await stop(served)).code).toBe(0);
  });
});
