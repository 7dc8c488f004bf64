// `gateway logs` reads the store as GET /v1/logs does: the same filters (checked by the same query
// schema), newest first, text or JSON lines, and --follow prints records as they are written.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import type { GatewayStore } from '../../runtime/store/open-store.ts';
import { createLocation, type StoreLocation } from '../store/backends.ts';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));

function record(team: string, status: number, at: number): RequestRecord {
  return {
    ...newRequestRecord(`trace-${randomUUID()}`, 'POST', '/v1/chat/completions', 'http', at), status, provider: 'openai', modelRequested: 'gpt-4o-mini',
    metadata: { team }, usage: { inputTokens: 5, outputTokens: 7, cachedInputTokens: 0, totalTokens: 12, estimated: false }, costUsd: 0.000012, latencyMs: 12.5,
  };
}

function gatewayLogs(args: string[]) {
  const env = { ...process.env, DATABASE_URL: '' };
  return spawnSync(process.execPath, [BIN, 'logs', ...args], { encoding: 'utf8', env });
}

describe('gateway logs', () => {
  let location: StoreLocation;
  let store: GatewayStore;
  const team = `team-${randomUUID().slice(0, 6)}`;
  const now = Date.now();
  const records = [record(team, 200, now - 3000), record(team, 500, now - 2000), { ...record(team, 200, now - 1000), cacheStatus: 'HIT' as const }];

  beforeAll(async () => {
    location = await createLocation('sqlite');
    store = await location.open();
    await store.requestLogs.insert(RecordBatch.of([...records, record('other', 200, now)].map((r) => JSON.stringify(r))));
  });
  afterAll(async () => {
    await store?.close();
    await location?.remove();
  });

  it('prints matching records newest first, as JSON lines in the API shape', () => {
    const out = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${team}`, '--json']);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; object: string; metadata: Record<string, string> });
    expect(lines.map((l) => l.id)).toEqual([...records].reverse().map((r) => r.id));
    expect(lines.every((l) => l.object === 'request_log' && l.metadata.team === team)).toBe(true);
    const errors = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${team}`, '--status', '5xx', '--json']);
    expect(errors.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('prints one readable line per record', () => {
    const out = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${team}`, '--limit', '1']);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(records[2].traceId);
    expect(lines[0]).toMatch(/ 200 {2}POST \/v1\/chat\/completions {2}openai {2}gpt-4o-mini {2}12\.5 ms {2}5\+7 tok {2}\$0\.000012 {2}HIT {2}trace-/);
    const uncached = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${team}`, '--status', '5xx']);
    expect(uncached.stdout).toMatch(/ \$0\.000012 {2}- {2}trace-/);
  });

  it('prints the seconds of a transcription billed by its length instead of its zero tokens', async () => {
    const heard = `heard-${randomUUID().slice(0, 6)}`;
    const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, audioSeconds: 9, estimated: false };
    await store.requestLogs.insert(RecordBatch.of([JSON.stringify({ ...record(heard, 200, now), path: '/v1/audio/transcriptions', modelRequested: 'whisper-1', usage, costUsd: 0.0009 })]));
    const out = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${heard}`]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/ whisper-1 {2}12\.5 ms {2}9 s audio {2}\$0\.000900 {2}/);
  });

  it('prints the images and the characters of answers billed per unit instead of their zero tokens', async () => {
    const drawn = `drawn-${randomUUID().slice(0, 6)}`;
    const none = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, estimated: false };
    await store.requestLogs.insert(RecordBatch.of([
      JSON.stringify({ ...record(drawn, 200, now), path: '/v1/images/generations', modelRequested: 'dall-e-3', usage: { ...none, images: 2, imageSize: '1024x1792', imageQuality: 'hd' }, costUsd: 0.24 }),
      JSON.stringify({ ...record(drawn, 200, now - 1000), path: '/v1/images/generations', modelRequested: 'dall-e-2', usage: { ...none, images: 1, imageSize: null, imageQuality: null }, costUsd: 0.02 }),
      JSON.stringify({ ...record(drawn, 200, now - 2000), path: '/v1/audio/speech', modelRequested: 'tts-1', usage: { ...none, inputCharacters: 120 }, costUsd: 0.0018 }),
      JSON.stringify({ ...record(drawn, 200, now - 3000), path: '/v1/audio/speech', modelRequested: 'gpt-4o-mini-tts', usage: { ...none, inputCharacters: 120, audioOutputSeconds: 8.5, estimated: true }, costUsd: 0.002125 }),
      JSON.stringify({ ...record(drawn, 200, now - 4000), path: '/v1/embeddings', modelRequested: 'text-embedding-005', usage: { ...none, inputTokens: 6, totalTokens: 6, inputCharacters: 25 }, costUsd: 0.000000625 }),
    ]));
    const out = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${drawn}`]);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/ dall-e-3 {2}12\.5 ms {2}2 images 1024x1792 hd {2}\$0\.240000 {2}/);
    expect(lines[1]).toMatch(/ dall-e-2 {2}12\.5 ms {2}1 image {2}\$0\.020000 {2}/);
    expect(lines[2]).toMatch(/ tts-1 {2}12\.5 ms {2}120 chars {2}\$0\.001800 {2}/);
    expect(lines[3]).toMatch(/ gpt-4o-mini-tts {2}12\.5 ms {2}120 chars, 8\.5 s speech {2}\$0\.002125 {2}/);
    // An embedding billed by its characters counted both.
    expect(lines[4]).toMatch(/ text-embedding-005 {2}12\.5 ms {2}6\+0 tok, 25 chars {2}\$0\.000001 {2}/);
  });

  it("writes a client's control characters as escapes: a model name cannot drive the terminal or forge a line", async () => {
    const hostile = `hostile-${randomUUID().slice(0, 6)}`;
    await store.requestLogs.insert(RecordBatch.of([JSON.stringify({ ...record(hostile, 200, now), modelRequested: 'm\u001b]0;owned\u0007\n2026-01-01  200  forged\u009b2J\u007f' })]));
    const out = gatewayLogs(['--data', location.dataDir, '--metadata', `team=${hostile}`]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    expect(out.stdout).toContain('m\\x1b]0;owned\\x07\\x0a2026-01-01  200  forged\\x9b2J\\x7f  12.5 ms');
    expect(out.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('refuses a bad filter with the usage and exit 2, and has --help', () => {
    const bad = gatewayLogs(['--data', location.dataDir, '--status', '2yy']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/status/);
    expect(bad.stderr).toContain('Usage: gateway logs');
    const noPair = gatewayLogs(['--data', location.dataDir, '--metadata', 'team']);
    expect(noPair.status).toBe(2);
    const help = gatewayLogs(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--follow');
  });

  it('says there is no store where none is (and creates none), and a store that does not answer, without a stack', async () => {
    const empty = await createLocation('sqlite');
    try {
      const missing = gatewayLogs(['--data', empty.dataDir]);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toBe(`gateway logs: no gateway store in ${empty.dataDir}: give the data folder \`gateway serve\` uses (--data DIR), or set DATABASE_URL to its PostgreSQL store.\n`);
      expect(existsSync(join(empty.dataDir, 'gateway.sqlite'))).toBe(false);
    } finally {
      await empty.remove();
    }
    const down = spawnSync(process.execPath, [BIN, 'logs'], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' } });
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/^gateway logs: cannot open the PostgreSQL store: .*\n$/);
  });

  it('follows: prints a record written after it started, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [BIN, 'logs', '--data', location.dataDir, '--metadata', `team=${team}`, '--follow', '--json'], { env: { ...process.env, DATABASE_URL: '' } });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const lines = () => stdout.trim().split('\n').filter((l) => l !== '');
    for (let waited = 0; lines().length < 3 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const late = record(team, 201, Date.now());
    await store.requestLogs.insert(RecordBatch.of([late].map((r) => JSON.stringify(r))));
    for (let waited = 0; lines().length < 4 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(lines().map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([...records.map((r) => r.id), late.id]);
  });
});
