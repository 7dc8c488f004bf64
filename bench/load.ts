// Load: a throughput run at N connections (wrk when installed, else autocannon as a library in this
// process) and a latency run at one connection (autocannon: one connection is no load on it). autocannon's own latency histogram keeps whole milliseconds, too
// coarse for a proxy's added ~0.1 ms, so the latency run records each response time (float ms) itself.
import autocannon, { type AutocannonResult } from 'autocannon';
import { wrkThroughput } from './wrk.ts';

export interface LoadTarget {
  url: string;
  method: 'POST' | 'GET';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ThroughputResult {
  requestsPerSecond: number;
  /** 2xx responses in the measured run. */
  requests: number;
  failures: number;
  seconds: number;
}

export interface LatencyRun {
  /** Response times of the 2xx responses, in ms, in arrival order. */
  samplesMs: number[];
  failures: number;
}

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  samples: number;
}

function load(target: LoadTarget, connections: number, seconds: number): ReturnType<typeof autocannon> {
  return autocannon({
    // autocannon ignores a separate `path` option: the path goes in the URL.
    url: new URL(target.path, target.url).href,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    timeout: 10,
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false,
  });
}

function failures(result: AutocannonResult): number {
  return result.errors + result.timeouts + result.non2xx;
}

export async function warm(target: LoadTarget, connections: number, seconds: number): Promise<void> {
  if (seconds > 0) await load(target, connections, seconds);
}

/** The throughput run's load generator: wrk in its own process (pinned to `cpus`), or autocannon in this one. */
export type LoadGenerator = { kind: 'wrk'; cpus: string | null } | { kind: 'autocannon' };

export async function throughput(target: LoadTarget, connections: number, seconds: number, generator: LoadGenerator = { kind: 'autocannon' }): Promise<ThroughputResult> {
  if (generator.kind === 'wrk') return wrkThroughput(target, connections, seconds, generator.cpus);
  const result = await load(target, connections, seconds);
  return { requestsPerSecond: result['2xx'] / result.duration, requests: result['2xx'], failures: failures(result), seconds: result.duration };
}

export async function latency(target: LoadTarget, seconds: number): Promise<LatencyRun> {
  const samplesMs: number[] = [];
  const run = load(target, 1, seconds);
  run.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) samplesMs.push(ms);
  });
  const result = await run;
  return { samplesMs, failures: failures(result) };
}

export function summarise(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, ms) => sum + ms, 0) / Math.max(1, sorted.length);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), meanMs: mean, samples: sorted.length };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile of sorted values; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
