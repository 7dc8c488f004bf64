// The gateway with its PostgreSQL database gone (a database of its own, closed to connections and its
// sessions ended, as a restart or an outage does): routed requests still answer from memory, the
// endpoints that need the database answer 503 store_unavailable with Retry-After (never a 500), the
// outage is logged once when it starts and once when it ends, the records of requests made
// meanwhile reach the log once the database answers again (kept in files when there are more than
// its queue holds), and a gateway-managed batch cut off mid-run completes afterwards with every line
// exactly once.
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import type { GatewayLogger, LogFields } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { StoreUnavailableError } from '../../runtime/store/sql/sql-database.ts';
import { POLL_STALL_MS } from '../../runtime/store/change-feed.ts';
import { openPostgresDatabase } from '../../runtime/store/postgres/open-postgres.ts';
import { PostgresDatabase, STOPPING_TIMEOUT_MS } from '../../runtime/store/postgres/postgres-database.ts';
import { startSilentProxy } from '../support/silent-proxy.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { adminSql, TEST_DATABASE_URL } from '../store/backends.ts';
import { chatLine, jsonl, until } from '../jobs/harness.ts';

const ADMIN = 'gw_store-outage-admin-key-0123456789abcd';
const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const LINES = 30;
/** Short leases and polls, so a batch cut off by the outage is taken up again within a second of its end. */
const BATCH_ENV = { GATEWAY_BATCH_LEASE_MS: '500', GATEWAY_BATCH_POLL_MS: '50', GATEWAY_BATCH_CONCURRENCY: '2' };

describe('the gateway while its PostgreSQL database does not answer', () => {
  const database = `gw_outage_${randomBytes(5).toString('hex')}`;
  const databaseUrl = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${database}` }).toString();
  const events: Array<[string, string]> = [];
  const logger: GatewayLogger = {
    info: (event: string, _?: LogFields) => void events.push(['info', event]),
    warn: (event: string, _?: LogFields) => void events.push(['warn', event]),
    error: (event: string, _?: LogFields) => void events.push(['error', event]),
  };
  let gateway: RunningGateway;
  let mock: VendorMock;
  let dir: string;

  const closeDatabase = async (): Promise<void> => {
    await adminSql(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await adminSql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`);
  };
  const openDatabase = () => adminSql(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);

  const savedEnv = Object.fromEntries(Object.keys(BATCH_ENV).map((name) => [name, process.env[name]]));

  beforeAll(async () => {
    Object.assign(process.env, BATCH_ENV);
    await adminSql(`CREATE DATABASE ${database}`);
    mock = await startVendorMock({ label: 'store-outage' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-outage-'));
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
    gateway = await start();
  });
  const start = () => startGateway({ port: 0, dataDir: dir, databaseUrl, configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger, storePollMs: 100, setup: serveSetup });
  afterAll(async () => {
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await openDatabase().catch(() => undefined);
    await gateway?.close();
    await mock?.close();
    await adminSql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await rm(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, body?: unknown) => fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const chat = (traceId: string) => fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-trace-id': traceId, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });

  const storeUp = async () => Number(/^gateway_backend_up\{backend="store"\} (\d)/m.exec(await (await fetch(`${gateway.url}/metrics`)).text())?.[1]);
  const storeHealth = async () => ((await (await call('GET', '/v1/health')).json()) as { status: string; store: { backend: string; status: string } });

  it('routes from memory, answers 503 store_unavailable where it needs the database, and catches up after', async () => {
    expect((await call('GET', '/v1/configs')).status).toBe(200);
    expect(await storeHealth()).toEqual(expect.objectContaining({ status: 'ok', store: { backend: 'postgres', status: 'ok' } }));
    expect(await storeUp()).toBe(1);
    await closeDatabase();

    const during = `during-${randomBytes(4).toString('hex')}`;
    expect((await chat(during)).status).toBe(200);
    for (const [method, path, body] of [['GET', '/v1/configs'], ['GET', '/v1/logs'], ['POST', '/v1/configs', { id: 'new-one', config: { provider: 'openai', api_key: 'sk-x' } }]] as const) {
      const res = await call(method, path, body);
      const answer = await res.json();
      expect(res.status, `${method} ${path}: ${JSON.stringify(answer)}`).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(answer).toEqual({ error: { message: expect.any(String), type: 'server_error', param: null, code: 'store_unavailable' } });
    }
    // The operator is told why, once for the same failure however many calls meet it.
    const whyLogged = events.filter(([, event]) => event === 'store_call_failed').length;
    expect(whyLogged).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect((await call('GET', '/v1/configs')).status).toBe(503);
    expect(events.filter(([, event]) => event === 'store_call_failed').length).toBe(whyLogged);
    // Several polls of the change feed and the log writer fail meanwhile.
    await new Promise((r) => setTimeout(r, 1500));
    expect(events.filter(([, event]) => event === 'request_failed')).toEqual([]);
    // Still serving (status ok), and saying what it is missing.
    expect(await storeHealth()).toEqual(expect.objectContaining({ status: 'ok', store: { backend: 'postgres', status: 'unavailable' } }));
    expect(await storeUp()).toBe(0);

    await openDatabase();
    const found = await until(async () => (await (await call('GET', `/v1/logs?trace_id=${during}`)).json()) as { data?: unknown[] }, (page) => page.data?.length === 1, 10_000, 'the record made during the outage');
    expect(found.data).toHaveLength(1);
    await until(async () => events, (seen) => seen.some(([, event]) => event === 'store_change_feed_recovered'), 5000, 'the change feed back');
    expect((await call('GET', '/v1/configs')).status).toBe(200);
    expect((await storeHealth()).store.status).toBe('ok');
    expect(await storeUp()).toBe(1);

    const count = (name: string) => events.filter(([, event]) => event === name).length;
    expect(count('store_change_feed_failed')).toBe(1);
    expect(count('store_change_feed_recovered')).toBe(1);
    expect(count('request_log_write_failed')).toBe(1);
    expect(count('request_log_recovered')).toBe(1);
  });

  it('answers 503 while the database takes no writes (read-only), and writes the records made meanwhile once it does', async () => {
    // What a standby the address still leads to after a failover does, or a managed database that
    // turned read-only as its disk filled: every session starts read-only, reads work.
    const during = `read-only-${randomBytes(4).toString('hex')}`;
    const failedBefore = events.filter(([, event]) => event === 'request_log_write_failed').length;
    await adminSql(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
    try {
      await adminSql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`);
      expect((await chat(during)).status).toBe(200);
      expect((await call('GET', '/v1/configs')).status).toBe(200);
      const refused = await call('POST', '/v1/configs', { id: 'read-only-one', config: { provider: 'openai', api_key: 'sk-x' } });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      await until(async () => events.filter(([, event]) => event === 'request_log_write_failed').length, (failed) => failed > failedBefore, 5000, 'the refused log write');
    } finally {
      await adminSql(`ALTER DATABASE ${database} RESET default_transaction_read_only`);
    }
    // The connections that were refused a write were dropped; new ones start writable.
    const found = await until(async () => (await (await call('GET', `/v1/logs?trace_id=${during}`)).json()) as { data?: unknown[] }, (page) => page.data?.length === 1, 10_000, 'the record made while read-only');
    expect(found.data).toHaveLength(1);
    expect((await call('POST', '/v1/configs', { id: 'read-only-one', config: { provider: 'openai', api_key: 'sk-x' } })).status).toBe(200);
  });

  it('completes a gateway-managed batch the outage cut off, every line exactly once', async () => {
    // A provider without a batch API, so the gateway runs the batch; slow answers, so the outage lands
    // mid-run: ~2 s for the whole batch, two lines at a time. At 40 ms a line (0.6 s in all) a run on
    // a loaded machine once waited 10 s for the run to be cut off and never saw it: most likely the
    // batch had finished before the database went.
    mock.script({ path: '/v1/chat/completions', delayMs: 150, times: 100_000 });
    const route = { 'x-gateway-provider': 'ollama', 'x-gateway-custom-host': mock.baseURL, authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const api = async (method: string, path: string, body?: RequestInit['body'], type?: string): Promise<any> => {
      const res = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-gateway-api-key': ADMIN, ...route, ...(type === undefined ? {} : { 'content-type': type }) }, body });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text;
    };
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([jsonl(Array.from({ length: LINES }, (_, i) => chatLine(`o-${i}`, `outage line ${i}`)))]), 'outage.jsonl');
    const file = await api('POST', '/v1/files', form);
    const batch = await api('POST', '/v1/batches', JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }), 'application/json');
    await until(() => api('GET', `/v1/batches/${batch.id}`), (b) => b.request_counts.completed >= 4, 20_000, 'four lines');

    const failedRuns = events.filter(([, event]) => event === 'batch_run_failed').length;
    await closeDatabase();
    // The outage did cut the run off (it was not over before the database went). Waited for, not
    // timed: on a loaded machine a fixed 800 ms passed before the run noticed (a CI run failed so).
    await until(async () => events.filter(([, event]) => event === 'batch_run_failed').length, (failed) => failed > failedRuns, 10_000, 'the run cut off');
    expect(events.filter(([, event]) => event === 'batch_run_failed').length).toBe(failedRuns + 1);
    await openDatabase();

    const done = await until(() => api('GET', `/v1/batches/${batch.id}`), (b) => b.status === 'completed', 30_000, 'the batch to complete');
    expect(done.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
    const output = (await api('GET', `/v1/files/${done.output_file_id}/content`)) as string;
    const ids = output.trimEnd().split('\n').map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
    expect(ids).toEqual(Array.from({ length: LINES }, (_, i) => `o-${i}`));
  });

  it('does not ask the provider for an emulated response it could not store', async () => {
    const responses = (store: boolean) => fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-provider': 'ollama', 'x-gateway-custom-host': mock.baseURL, authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: `outage ${store}`, store }),
    });
    await closeDatabase();
    try {
      await until(async () => (await storeHealth()).store.status, (status) => status === 'unavailable', 5000, 'the outage to be seen');
      const asked = mock.requests.length;
      const refused = await responses(true);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
      expect(mock.requests.length).toBe(asked);
      // Not to be stored: answered as usual.
      const answered = await responses(false);
      expect(answered.status).toBe(200);
      expect(mock.requests.length).toBe(asked + 1);
    } finally {
      await openDatabase();
      await until(async () => (await storeHealth()).store.status, (status) => status === 'ok', 5000, 'the store back');
    }
  });

  it('ends a streamed response it could not store once generated with an error event, not response.completed', async () => {
    // The provider's words come 200 ms apart: the database goes away while the stream flows. (Steps
    // left by the batch's slow answers go first.)
    mock.reset();
    mock.script({ path: '/v1/chat/completions', frameDelayMs: 200 });
    const res = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-provider': 'ollama', 'x-gateway-custom-host': mock.baseURL, authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'content-type': 'application/json' },
      // Twelve words, 200 ms apart: the database is closed well before the stream ends, however slow the machine.
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'one two three four five six seven eight nine ten eleven twelve', stream: true }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    try {
      while (!text.includes('response.output_text.delta')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await closeDatabase();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } finally {
      await openDatabase();
      await until(async () => (await storeHealth()).store.status, (status) => status === 'ok', 5000, 'the store back');
    }
    const events = text.split('\n\n').filter((frame) => frame.includes('data: ')).map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; code?: string });
    expect(events.map((event) => event.type)).not.toContain('response.completed');
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'store_unavailable' });
    expect(events.filter((event) => event.type === 'response.output_text.delta')).toHaveLength(13);
  });

  it('gives up on a database that accepts connections and never answers, as unavailable', async () => {
    // A firewall that drops packets, or a server stuck before its handshake: the socket opens, nothing comes back.
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const db = new PostgresDatabase({ connectionString: `postgres://postgres@127.0.0.1:${port}/x`, connectTimeoutMs: 300 });
    try {
      const started = Date.now();
      await expect(db.get('SELECT 1 AS one')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(db.transaction((tx) => tx.get('SELECT 1 AS one'))).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await db.close();
      silent.close();
    }
  });

  it('gives up on statements of a database that went silent under open connections; a stop cuts those waiting, and close ends', async () => {
    const proxy = await startSilentProxy(Number(new URL(TEST_DATABASE_URL).port || 5432));
    const through = Object.assign(new URL(databaseUrl), { port: String(proxy.port) }).toString();
    const quick = new PostgresDatabase({ connectionString: through, statementTimeoutMs: 400 });
    const patient = new PostgresDatabase({ connectionString: through, statementTimeoutMs: 60_000 });
    try {
      expect(await quick.get('SELECT 1 AS one')).toEqual({ one: 1 });
      // Two connections open: one for the held transaction, one for the statement left waiting.
      expect(await Promise.all([patient.get('SELECT 1 AS one'), patient.get('SELECT pg_sleep(0.05), 2 AS two')])).toEqual([{ one: 1 }, { pg_sleep: '', two: 2 }]);
      // A transaction that holds its client between two statements when the connection goes.
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      const held = patient.transaction(async (tx) => {
        await tx.get('SELECT 1 AS one');
        await paused;
        return tx.get('SELECT 2 AS two');
      });
      await new Promise((r) => setTimeout(r, 100));
      proxy.silent = true;

      let started = Date.now();
      await expect(quick.get('SELECT 1 AS one')).rejects.toThrow(new StoreUnavailableError('PostgreSQL: no answer to a statement within its timeout'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(Date.now() - started).toBeLessThan(3000);

      // Waiting under the serving timeout (a minute): a stop gives it STOPPING_TIMEOUT_MS more, then cuts it.
      const waiting = patient.get('SELECT 1 AS one');
      await new Promise((r) => setTimeout(r, 100));
      started = Date.now();
      patient.stopping();
      await expect(waiting).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(STOPPING_TIMEOUT_MS + 1000);
      // The held transaction's client was cut between its statements: its next one fails, the process lives.
      resume();
      await expect(held).rejects.toBeInstanceOf(StoreUnavailableError);

      // Half-closed connections the database never acknowledges are cut too.
      started = Date.now();
      await Promise.all([quick.close(), patient.close()]);
      expect(Date.now() - started).toBeLessThan(2 * STOPPING_TIMEOUT_MS + 1000);
    } finally {
      await proxy.close();
    }
  });

  it('a stop against a database gone silent ends within seconds and keeps its records for the next start', async () => {
    const proxy = await startSilentProxy(Number(new URL(TEST_DATABASE_URL).port || 5432));
    const through = Object.assign(new URL(databaseUrl), { port: String(proxy.port) }).toString();
    const silentDir = await mkdtemp(join(tmpdir(), 'gateway-silent-'));
    try {
      const quiet = await startGateway({ port: 0, dataDir: silentDir, databaseUrl: through, configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger, storePollMs: 100, setup: serveSetup });
      const send = (traceId: string) => fetch(`${quiet.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-trace-id': traceId, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      // Pooled connections open and in use (the change feed polls), then nothing comes back on them.
      await new Promise((r) => setTimeout(r, 300));
      proxy.silent = true;
      const trace = `silent-${randomBytes(4).toString('hex')}`;
      expect((await send(trace)).status).toBe(200);
      // Its polls wait on the silent connections (30 s each): health says so once one waited POLL_STALL_MS.
      const silentSince = Date.now();
      const health = await until(async () => (await (await fetch(`${quiet.url}/v1/health`)).json()) as { store?: { status: string } }, (body) => body.store?.status === 'unavailable', POLL_STALL_MS + 3000, 'the store reported unavailable');
      expect(health.store).toEqual({ backend: 'postgres', status: 'unavailable' });
      expect(Date.now() - silentSince).toBeGreaterThanOrEqual(POLL_STALL_MS - 500);
      const spilled = events.filter(([, event]) => event === 'request_log_spilled').length;
      const started = Date.now();
      await quiet.close();
      // Its writes waited on connections that never answer (30 s each while serving); a stop gives them seconds.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(events.filter(([, event]) => event === 'request_log_spilled').length).toBe(spilled + 1);
      expect(readdirSync(silentDir).filter((name) => name.startsWith('request-log-pending-'))).toHaveLength(1);

      // The next start on that folder, its database answering: the record is written.
      const next = await startGateway({ port: 0, dataDir: silentDir, databaseUrl, configsDir: join(dir, 'configs'), seedApiKey: ADMIN, logger, storePollMs: 100, setup: serveSetup });
      try {
        const page = await until(async () => (await (await fetch(`${next.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': ADMIN } })).json()) as { data?: unknown[] }, (found) => found.data?.length === 1, 10_000, 'the kept record');
        expect(page.data).toHaveLength(1);
      } finally {
        await next.close();
      }
    } finally {
      await proxy.close();
      await rm(silentDir, { recursive: true, force: true });
    }
  });

  it('tells a database that refuses connections apart from a statement that failed', async () => {
    const db = await openPostgresDatabase({ connectionString: databaseUrl });
    try {
      await expect(db.get('SELECT no_such_column FROM store_revisions')).rejects.not.toBeInstanceOf(StoreUnavailableError);
      await closeDatabase();
      await expect(db.get('SELECT 1 AS one')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(db.transaction((tx) => tx.get('SELECT 1 AS one'))).rejects.toBeInstanceOf(StoreUnavailableError);
      await openDatabase();
      expect(await db.get('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await openDatabase();
      await db.close();
    }
  });
  it('answers a statement the server cancelled (its own statement_timeout) or a lock it gave up on as unavailable, not as a failed statement', async () => {
    const db = await openPostgresDatabase({ connectionString: databaseUrl });
    try {
      await expect(db.transaction(async (tx) => {
        await tx.run("SET LOCAL statement_timeout = '20ms'");
        return tx.get('SELECT pg_sleep(1) AS slept');
      })).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await db.get('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await db.close();
    }
  });

  it('`gateway logs --follow` waits out the outage and goes on following', async () => {
    const follower = spawn(process.execPath, [BIN, 'logs', '--follow', '--json'], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    let out = '';
    let err = '';
    follower.stdout.on('data', (chunk) => (out += chunk));
    follower.stderr.on('data', (chunk) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => follower.on('exit', (code) => resolve(code)));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      await closeDatabase();
      await until(async () => err, (text) => text.includes('still following'), 10_000, 'the follower to say it waits');
      await openDatabase();
      const trace = `followed-${randomBytes(4).toString('hex')}`;
      expect((await chat(trace)).status).toBe(200);
      await until(async () => out, (text) => text.includes(trace), 15_000, 'the record to be followed');
      expect(err).toContain('the store answers again');
      follower.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (follower.exitCode === null) follower.kill('SIGKILL');
    }
  });

  it('keeps the records a stop during the outage could not write in the data folder, and writes them at the next start', async () => {
    await closeDatabase();
    const trace = `at-stop-${randomBytes(4).toString('hex')}`;
    expect((await chat(trace)).status).toBe(200);
    const spilled = events.filter(([, event]) => event === 'request_log_spilled').length;
    await gateway.close();
    expect(events.filter(([, event]) => event === 'request_log_spilled')).toHaveLength(spilled + 1);
    expect(events.filter(([, event]) => event === 'request_log_lost_on_close')).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.startsWith('request-log-pending-'))).toHaveLength(1);

    await openDatabase();
    gateway = await start();
    const found = await until(async () => (await (await call('GET', `/v1/logs?trace_id=${trace}`)).json()) as { data?: Array<{ status: number }> }, (page) => page.data?.length === 1, 10_000, 'the spilled record');
    expect(found.data![0]!.status).toBe(200);
    expect(readdirSync(dir).filter((name) => name.startsWith('request-log-pending-'))).toEqual([]);
  });

  it('keeps the records of an outage longer than the log queue holds in files, and writes every one when the store is back', async () => {
    // A queue of 20 records: the outage outlasts it several times over.
    await gateway.close();
    const saved = process.env.GATEWAY_LOG_QUEUE_MAX;
    process.env.GATEWAY_LOG_QUEUE_MAX = '20';
    try {
      gateway = await start();
    } finally {
      if (saved === undefined) delete process.env.GATEWAY_LOG_QUEUE_MAX;
      else process.env.GATEWAY_LOG_QUEUE_MAX = saved;
    }
    const seen = (name: string) => events.filter(([, event]) => event === name).length;
    const failures = seen('request_log_write_failed');
    const spills = seen('request_log_spilled');
    // Answers 150 ms apart: a queue of 20 then fills far slower than a file is written. The log
    // writes one file at a time and drops a queue that fills again meanwhile (docs/decisions.md, "While
    // the store is away"), a bound this test does not measure; at the default queue of 20,000 that
    // takes seconds of traffic. (This pace came before from an earlier test's leftover step, unsaid.)
    mock.reset();
    mock.script({ path: '/v1/chat/completions', delayMs: 150, times: 100 });
    await closeDatabase();
    const tag = `long-${randomBytes(4).toString('hex')}`;
    const tagged = (i: number) => fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': JSON.stringify({ outage: tag, n: String(i) }), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${i}` }] }),
    });
    expect((await tagged(0)).status).toBe(200);
    // The writer has found the store away (its next flush failed).
    await until(async () => seen('request_log_write_failed'), (n) => n > failures, 5000, 'the failed flush');
    for (let i = 1; i < 100; i++) expect((await tagged(i)).status).toBe(200);
    await until(async () => seen('request_log_spilled'), (n) => n >= spills + 4, 5000, 'the full queues kept in files');
    expect(readdirSync(dir).filter((name) => name.startsWith('request-log-pending-')).length).toBeGreaterThanOrEqual(4);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_log_dropped_records 0$/m);

    await openDatabase();
    const page = await until(async () => (await (await call('GET', `/v1/logs?metadata.outage=${tag}&limit=1000`)).json()) as { data?: Array<{ metadata: { n: string } }> }, (found) => found.data?.length === 100, 15_000, 'every record of the outage');
    expect(page.data!.map((record) => Number(record.metadata.n)).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await until(async () => readdirSync(dir).filter((name) => name.startsWith('request-log-pending-')), (files) => files.length === 0, 5000, 'the files written and deleted');
  });
});
