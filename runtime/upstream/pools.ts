// One undici Pool per provider origin, created on first use and kept for the life of the process,
// so keep-alive connections are reused across requests, configs and tenants.
import type { LookupFunction } from 'node:net';
import { Pool } from './undici-pool.ts';

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
}

// headers/body timeouts are a safety net against sockets that hang forever; the per-attempt
// request_timeout is enforced by the router through the request's AbortSignal.
export const DEFAULT_POOL_SETTINGS: Readonly<PoolSettings> = Object.freeze({
  connections: 128,
  keepAliveTimeoutMs: 30_000,
  headersTimeoutMs: 600_000,
  bodyTimeoutMs: 600_000,
  connectTimeoutMs: 10_000,
});

let settings: PoolSettings = { ...DEFAULT_POOL_SETTINGS };
let connectLookup: LookupFunction | undefined;
const pools = new Map<string, Pool>();

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
  if (known !== undefined) return known;
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`upstream origin must be http or https, got ${url.protocol}`);
  }
  let pool = pools.get(url.origin);
  if (pool === undefined || pool.closed) {
    pool = createPool(url.origin);
    pools.set(url.origin, pool);
  }
  pools.set(origin, pool);
  return pool;
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
