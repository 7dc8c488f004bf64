// Serve's environment as a whole (runtime/cli/serve-env.ts): a setting that only works beside
// another is refused without it, every one at once; values read before serve runs are checked at
// start; REDIS_URL and DATABASE_URL must be URLs of their kind, and neither is echoed.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fc } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { SERVE_SETTINGS, serveEnvProblems } from '../../runtime/cli/serve-env.ts';
import { envHttpUrl } from '../../runtime/core/env-url.ts';
import { redisSettingsFromEnv } from '../../runtime/store/redis/redis-connection.ts';
import { openPostgresDatabase } from '../../runtime/store/postgres/open-postgres.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/gateway.js');

/** Each dependent setting, an environment in which it works, and the same environment in which it does nothing. */
const CASES: Array<{ name: string; works: NodeJS.ProcessEnv; idle: NodeJS.ProcessEnv; because: RegExp }> = [
  ...['GATEWAY_SEMANTIC_CACHE_MODEL', 'GATEWAY_SEMANTIC_CACHE_THRESHOLD', 'GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES'].map((name) => ({
    name, works: { GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: 'embed' }, idle: {}, because: /GATEWAY_SEMANTIC_CACHE_EMBEDDINGS is not set/,
  })),
  { name: 'GATEWAY_REDIS_TIMEOUT_MS', works: { REDIS_URL: 'redis://127.0.0.1:6379' }, idle: {}, because: /REDIS_URL is not set/ },
  { name: 'GATEWAY_METRICS_KEY', works: { GATEWAY_METRICS: 'on' }, idle: { GATEWAY_METRICS: 'off' }, because: /GATEWAY_METRICS is off/ },
  ...['GATEWAY_LOG_BODIES', 'GATEWAY_LOG_QUEUE_MAX', 'GATEWAY_LOG_FLUSH_MS'].map((name) => ({
    name, works: {}, idle: { GATEWAY_REQUEST_LOG: 'false' }, because: /GATEWAY_REQUEST_LOG is off/,
  })),
  { name: 'GATEWAY_LOG_BODY_MAX_BYTES', works: { GATEWAY_LOG_BODIES: 'on' }, idle: { GATEWAY_REQUEST_LOG: 'false' }, because: /GATEWAY_REQUEST_LOG is off/ },
  { name: 'GATEWAY_LOG_BODY_MAX_BYTES', works: { GATEWAY_LOG_BODIES: 'true' }, idle: { GATEWAY_LOG_BODIES: 'off' }, because: /GATEWAY_LOG_BODIES is not on/ },
  { name: 'GATEWAY_LOG_WRITER', works: {}, idle: { DATABASE_URL: 'postgres://127.0.0.1/test' }, because: /SQLite store only/ },
];

it('refuses each dependent setting without what it depends on, and takes it with it', () => {
  for (const c of CASES) {
    expect(serveEnvProblems({ ...c.works, [c.name]: '1' }), c.name).toEqual([]);
    const problems = serveEnvProblems({ ...c.idle, [c.name]: '1' });
    expect(problems, c.name).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${c.name} is set, but .*: unset it\\.$`));
    expect(problems[0]).toMatch(c.because);
    // Unset or empty is not set.
    expect(serveEnvProblems({ ...c.idle, [c.name]: ' ' }), c.name).toEqual([]);
  }
});

it('property: the problems are exactly the dependent settings set where they do nothing, each once', () => {
  const names = [...new Set(CASES.map((c) => c.name))];
  const env = fc.record({
    set: fc.subarray(names),
    GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: fc.constantFrom(undefined, '', 'embed'),
    REDIS_URL: fc.constantFrom(undefined, 'redis://127.0.0.1:6379'),
    GATEWAY_METRICS: fc.constantFrom(undefined, 'on', 'off', 'OFF', '0'),
    GATEWAY_REQUEST_LOG: fc.constantFrom(undefined, 'on', 'off', 'false'),
    DATABASE_URL: fc.constantFrom(undefined, 'postgres://127.0.0.1/test'),
  });
  fc.assert(
    fc.property(env, ({ set, ...base }) => {
      const full: NodeJS.ProcessEnv = { ...base };
      for (const name of set) full[name] = name === 'GATEWAY_LOG_BODIES' ? 'on' : 'x';
      const off = (v: string | undefined) => v !== undefined && ['off', '0', 'false'].includes(v.toLowerCase());
      const idle = (name: string): boolean => {
        if (name.startsWith('GATEWAY_SEMANTIC_CACHE_')) return !base.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS;
        if (name === 'GATEWAY_REDIS_TIMEOUT_MS') return base.REDIS_URL === undefined;
        if (name === 'GATEWAY_METRICS_KEY') return off(base.GATEWAY_METRICS);
        if (name === 'GATEWAY_LOG_WRITER') return off(base.GATEWAY_REQUEST_LOG) || base.DATABASE_URL !== undefined;
        // Bodies are logged when GATEWAY_LOG_BODIES is on (or set to a value its own check refuses).
        if (name === 'GATEWAY_LOG_BODY_MAX_BYTES') return off(base.GATEWAY_REQUEST_LOG) || full.GATEWAY_LOG_BODIES === undefined || off(full.GATEWAY_LOG_BODIES);
        return off(base.GATEWAY_REQUEST_LOG);
      };
      const reported = serveEnvProblems(full).map((line) => line.split(' ', 1)[0]);
      expect(reported.sort()).toEqual(set.filter(idle).sort());
    }),
    { numRuns: 200, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
  );
});

it('checks the values no module reads at start: the memory-tuning switch and the vendor base URL', () => {
  expect(serveEnvProblems({ GATEWAY_MEMORY_TUNING: 'off', GATEWAY_VENDOR_BASE_URL: 'http://127.0.0.1:9000/v1' })).toEqual([]);
  expect(serveEnvProblems({ GATEWAY_MEMORY_TUNING: ' ON ' })).toEqual([]);
  expect(serveEnvProblems({ GATEWAY_MEMORY_TUNING: 'maybe', GATEWAY_VENDOR_BASE_URL: 'api.example.com' })).toEqual([
    'GATEWAY_MEMORY_TUNING must be on or off, not "maybe".',
    'GATEWAY_VENDOR_BASE_URL must be an http(s) URL such as https://host/path (the value is not shown: a URL may carry a token).',
  ]);
});

it('REDIS_URL, DATABASE_URL and the URL settings must be URLs of their kind, said without echoing them', async () => {
  expect(serveEnvProblems({ GATEWAY_VENDOR_BASE_URL: 'htps://token-abc@api.example.com' })).toEqual([expect.not.stringContaining('token-abc')]);
  // The one reader of URL settings (GATEWAY_ALERT_WEBHOOK too): a webhook's token is in its path.
  expect(envHttpUrl({ GATEWAY_ALERT_WEBHOOK: ' https://hooks.example.com/services/T0/B0/secret ' }, 'GATEWAY_ALERT_WEBHOOK')?.href).toBe('https://hooks.example.com/services/T0/B0/secret');
  expect(envHttpUrl({}, 'GATEWAY_ALERT_WEBHOOK')).toBeNull();
  for (const bad of ['hooks.example.com/services/T0/B0/secret', 'ftp://hooks.example.com/secret']) {
    expect(() => envHttpUrl({ GATEWAY_ALERT_WEBHOOK: bad }, 'GATEWAY_ALERT_WEBHOOK')).toThrow(/^GATEWAY_ALERT_WEBHOOK must be an http\(s\) URL/);
    expect(() => envHttpUrl({ GATEWAY_ALERT_WEBHOOK: bad }, 'GATEWAY_ALERT_WEBHOOK')).not.toThrow(/secret/);
  }
  expect(redisSettingsFromEnv({ REDIS_URL: 'rediss://u:secret@127.0.0.1:6380/1' })?.url).toBe('rediss://u:secret@127.0.0.1:6380/1');
  expect(() => redisSettingsFromEnv({ REDIS_URL: 'secret@127.0.0.1:6379' })).toThrow(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
  expect(() => redisSettingsFromEnv({ REDIS_URL: 'secret@127.0.0.1:6379' })).not.toThrow(/secret/);
  const refused = await openPostgresDatabase({ connectionString: 'user:secret@127.0.0.1/test' }).catch((error: Error) => error);
  expect((refused as Error).message).toMatch(/DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
  expect((refused as Error).message).not.toMatch(/secret/);
});

it('a real serve lists every problem of its environment and does not start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'serve-env-'));
  try {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dir], {
      env: { ...process.env, GATEWAY_METRICS: 'off', GATEWAY_METRICS_KEY: 'k', GATEWAY_SEMANTIC_CACHE_THRESHOLD: '0.9', GATEWAY_SEMANTIC_CACHE_EMBEDDINGS: '', GATEWAY_MEMORY_TUNING: 'off' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    expect(code).toBe(1);
    expect(stdout).not.toContain('listening');
    expect(stderr.trim().split('\n')).toEqual([
      'gateway serve: GATEWAY_SEMANTIC_CACHE_THRESHOLD is set, but GATEWAY_SEMANTIC_CACHE_EMBEDDINGS is not set, so there is no semantic cache: unset it.',
      'gateway serve: GATEWAY_METRICS_KEY is set, but GATEWAY_METRICS is off, so there is no /metrics to protect: unset it.',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('a real serve says a refused value on one line, names it, and exits 1', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'serve-env-'));
  try {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dir], { env: { ...process.env, GATEWAY_STORE_POLL_MS: '5', GATEWAY_MEMORY_TUNING: 'off' } });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    expect(await new Promise<number | null>((done) => child.on('exit', done))).toBe(1);
    expect(stderr).toBe('gateway serve: GATEWAY_STORE_POLL_MS must be an integer of at least 10, not "5"\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('refuses a GATEWAY_ variable one typo from a setting, or a setting behind the prefix, and leaves other names alone', () => {
  expect(serveEnvProblems({ GATEWAY_LOG_BODY: 'on', GATEWAY_METRIC: 'off', GATEWAY_REDIS_URL: 'redis://127.0.0.1:6379', gateway_log_bodies: 'on' })).toEqual([
    'GATEWAY_LOG_BODY is not a setting of gateway serve: did you mean GATEWAY_LOG_BODIES? (docs/cli.md lists them)',
    'GATEWAY_METRIC is not a setting of gateway serve: did you mean GATEWAY_METRICS? (docs/cli.md lists them)',
    'GATEWAY_REDIS_URL is not a setting of gateway serve: did you mean REDIS_URL? (docs/cli.md lists them)',
  ]);
  // A config's own ${NAME} references, far from every setting, and empty values are not judged.
  expect(serveEnvProblems({ GATEWAY_OPENAI_KEY: 'sk-1', GATEWAY_TEST_VENDOR_KEY: 'k', GATEWAY_LOG_BODY: '' })).toEqual([]);
  for (const name of SERVE_SETTINGS.filter((setting) => !setting.startsWith('GATEWAY_SEMANTIC') && !/METRICS_KEY|LOG_|REDIS_TIMEOUT|VENDOR_BASE|MEMORY_TUNING/.test(setting))) {
    expect(serveEnvProblems({ [name]: '1' }), name).toEqual([]);
  }
});

/** Every file under `dir` whose name ends in .ts or .js. */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name)).map((entry) => join(entry.parentPath, entry.name));
}

it('SERVE_SETTINGS is every variable the code reads, and each is in the docs', async () => {
  const read = new Set<string>();
  for (const file of [...(await sources('runtime')), ...(await sources('bin')), ...(await sources('compiler'))]) {
    if (file.endsWith('serve-env.ts')) continue;
    for (const match of (await readFile(file, 'utf8')).matchAll(/(?:env\.|env\[|['"])((?:GATEWAY|OTEL|REDIS|DATABASE)_[A-Z0-9_]+)/g)) read.add(match[1]);
  }
  expect([...read].sort()).toEqual([...SERVE_SETTINGS].sort());
  let docs = '';
  for (const file of await readdir(join(ROOT, 'docs'))) docs += await readFile(join(ROOT, 'docs', file), 'utf8');
  for (const name of SERVE_SETTINGS) expect(docs, name).toContain(`\`${name}`);
});
