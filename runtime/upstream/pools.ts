// One undici Pool per provider origin, created on first use and reused across requests, configs and
// tenants, so keep-alive connections are shared. Origins come partly from clients (custom hosts), so
// the number of pools is bounded: past `maxPools`, the least recently used idle pool is closed.
import type { LookupFunction } from 'node:net';
import { Pool } from './undici-pool.ts';
import { envInteger } from '../core/env-integer.ts';

export interface PoolSettings {
  /** Upper bound of sockets per origin; undici's default is unlimited, which lets a burst exhaust file descriptors. */
  connections: number;
  /** How long an idle socket is kept. Servers' `Keep-Alive: timeout=` hints shorten it (undici honours them). */
  keepAliveTimeoutMs: number;
  /** Wait for the status line. Reasoning models can think for minutes before the first byte of a non-streamed answer. */
  headersTimeoutMs: number;
  /** Longest silence between body chunks. */
  bodyTimeoutMs: number;
  /** TCP + TLS handshake budget. */
  connectTimeoutMs: number;
  /** Pools kept at most (one per origin); past it the least recently used idle one is closed. */
  maxPools: number;
  /** The largest answer body the gateway holds in memory (to transform it, or to commit it whole); past it, 502. */
  maxBufferedBytes: number;
}

// headers/body timeouts bound an upstream that never answers or stalls mid-body even when a config
// sets no request_timeout (which the router enforces per attempt through the request's AbortSignal);
// their expiry is a failed attempt (408) that retries and fallbacks move past.
export const DEFAULT_POOL_SETTINGS: Readonly<PoolSettings> = Object.freeze({
  connections: 128,
  keepAliveTimeoutMs: 30_000,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  connectTimeoutMs: 10_000,
  maxPools: 256,
  maxBufferedBytes: 32 * 1024 * 1024,
});

/** GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS, GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS, GATEWAY_UPSTREAM_MAX_POOLS. */
export function poolSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<PoolSettings> {
  const changes: Partial<PoolSettings> = {};
  const read = (name: string, key: keyof PoolSettings): void => {
    if (env[name] !== undefined && env[name].trim() !== '') changes[key] = envInteger(env, name, DEFAULT_POOL_SETTINGS[key], 1);
  };
  read('GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS', 'headersTimeoutMs');
  read('GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS', 'bodyTimeoutMs');
  read('GATEWAY_UPSTREAM_MAX_POOLS', 'maxPools');
  read('GATEWAY_UPSTREAM_MAX_BYTES', 'maxBufferedBytes');
  return changes;
}

let settings: PoolSettings = { ...DEFAULT_POOL_SETTINGS };
let connectLookup: LookupFunction | undefined;
/** Pools by the origin string as callers spell it (raw and normalised spellings share one pool). */
const pools = new Map<string, Pool>();
/** When each pool was last handed out (performance.now()): a number write per request, no Map reordering. */
const lastUsed = new WeakMap<Pool, number>();

function checkPositive(name: keyof PoolSettings, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`pool setting ${name} must be a positive number, got ${value}`);
}

/** Changes the settings of pools created from now on (existing pools keep theirs; close them to apply). */
export function configurePools(changes: Partial<PoolSettings>): void {
  const next = { ...settings, ...changes };
  for (const name of Object.keys(next) as (keyof PoolSettings)[]) checkPositive(name, next[name]);
  if (!Number.isInteger(next.connections)) throw new RangeError('pool setting connections must be an integer');
  settings = next;
}

/** The DNS lookup of connections opened by pools created from now on (the custom-host policy's). */
export function setConnectLookup(lookup: LookupFunction | undefined): void {
  connectLookup = lookup;
}

export function poolSettings(): Readonly<PoolSettings> {
  return settings;
}

function createPool(origin: string): Pool {
  return new Pool(origin, {
    connections: settings.connections,
    // Providers speak HTTP/1.1 to us and one TCP connection per in-flight stream keeps a slow SSE
    // reader from stalling other requests through HTTP/2 flow control on a shared connection.
    allowH2: false,
    // Pipelining would queue a request behind a minutes-long generation on the same socket.
    pipelining: 1,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    connectTimeout: settings.connectTimeoutMs,
    ...(connectLookup === undefined ? {} : { connect: { lookup: connectLookup } }),
  });
}

/**
 * The pool for an origin (`scheme://host[:port]`). The raw string is the fast-path key; a miss
 * normalises it so `HTTP://Host:80` and `http://host` share one pool. Throws on a non-http(s) URL.
 */
export function poolFor(origin: string): Pool {
  const known = pools.get(origin);
  if (known !== undefined && !known.closed) {
    lastUsed.set(known, performance.now());
    return known;
  }
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`upstream origin must be http or https, got ${url.protocol}`);
  }
  let pool = pools.get(url.origin);
  if (pool === undefined || pool.closed) {
    if (upstreamPoolCount() >= settings.maxPools) evictOne();
    pool = createPool(url.origin);
    pools.set(url.origin, pool);
  }
  pools.set(origin, pool);
  lastUsed.set(pool, performance.now());
  return pool;
}

/** Closes the least recently used pool with nothing in flight (all are busy: the oldest anyway, gracefully). */
function evictOne(): void {
  let victim: Pool | null = null;
  let victimBusy = true;
  let oldest = Infinity;
  for (const pool of new Set(pools.values())) {
    const used = lastUsed.get(pool) ?? 0;
    const busy = pool.stats.running + pool.stats.pending > 0;
    if ((victimBusy && !busy) || (busy === victimBusy && used < oldest)) {
      victim = pool;
      victimBusy = busy;
      oldest = used;
    }
  }
  if (victim === null) return;
  for (const [key, pool] of pools) if (pool === victim) pools.delete(key);
  // Requests still on it finish (close waits for them); new ones get a new pool.
  void closeWithin(victim, 60_000);
}

/** How many upstream connection pools exist (one per origin): for /metrics. */
export function upstreamPoolCount(): number {
  return new Set(pools.values()).size;
}

/** Closes every pool; in-flight requests get `graceMs` to finish, then their sockets are destroyed. */
export async function closeAllPools(graceMs = 10_000): Promise<void> {
  const unique = [...new Set(pools.values())];
  pools.clear();
  await Promise.all(unique.map((pool) => closeWithin(pool, graceMs)));
}

async function closeWithin(pool: Pool, graceMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, graceMs, 'late');
    timer.unref();
  });
  const result = await Promise.race([pool.close().then(
    () => 'closed' as const,
    () => 'closed' as const,
  ), late]);
  clearTimeout(timer);
  if (result === 'late') await pool.destroy();
}
