// The printed table and the machine description that goes with every result.
import type { SemanticResult } from './semantic-bench.ts';
import type { Via } from './scenarios.ts';
import { cpus, platform, release, totalmem } from 'node:os';
import type { CompileResult } from './compile-bench.ts';
import type { InlineResult } from './inline-bench.ts';
import type { StageCosts } from './stage-bench.ts';
import type { TargetCheck } from './targets.ts';

export interface ScenarioResult {
  id: string;
  label: string;
  via: Via;
  streaming: boolean;
  /** Median over the rounds. */
  requestsPerSecond: number;
  roundsRequestsPerSecond: number[];
  requests: number;
  failures: number;
  ratioToFloor: number | null;
  p50Ms: number;
  p99Ms: number;
  latencySamples: number;
  /** p50 at one connection minus the direct run's. */
  addedP50Ms: number | null;
  floorAddedP50Ms: number | null;
  /** CPU of the process under test (gateway or floor) during the throughput run, per 2xx response. */
  cpuMicrosPerRequest: number | null;
  /** The part of cpuMicrosPerRequest spent by worker threads (the request log's writer). */
  workerCpuMicrosPerRequest: number | null;
  /** cpuMicrosPerRequest over the floor's: the throughput ratio a CPU-bound core would give, inverted. */
  cpuToFloor: number | null;
  /** Share of one core the process under test used during the throughput run. */
  cpuPercent: number | null;
  /** Share of one core the mock used during the throughput run (it must stay far from 100%). */
  mockCpuPercent: number;
  /** Peak RSS of the process under test since it started. */
  peakRssMB: number | null;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGB: number;
  os: string;
  node: string;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
  };
}

export function describeMachine(m: Machine): string {
  return `${m.cores} × ${m.cpu}, ${m.memoryGB} GB, ${m.os}, Node ${m.node}`;
}

const num = (value: number | null, digits = 0): string => (value === null || Number.isNaN(value) ? '—' : value.toFixed(digits));

export function scenarioTable(rows: readonly ScenarioResult[], connections: number): string {
  const header = ['scenario', `req/s @${connections}`, '× floor', 'p50 @1 ms', 'p99 @1 ms', 'added p50 µs', 'CPU µs/req', 'writer µs/req', 'CPU × floor', 'CPU %', 'mock CPU %', 'peak RSS MB', 'fails'];
  const body = rows.map((r) => [
    r.label,
    num(r.requestsPerSecond),
    r.ratioToFloor === null ? '—' : `${(r.ratioToFloor * 100).toFixed(1)}%`,
    num(r.p50Ms, 3),
    num(r.p99Ms, 3),
    r.addedP50Ms === null ? '—' : num(r.addedP50Ms * 1000),
    num(r.cpuMicrosPerRequest, 1),
    num(r.workerCpuMicrosPerRequest, 1),
    r.cpuToFloor === null ? '—' : `${r.cpuToFloor.toFixed(2)}×`,
    num(r.cpuPercent),
    num(r.mockCpuPercent),
    num(r.peakRssMB, 1),
    String(r.failures),
  ]);
  return markdownTable(header, body, [false, ...header.slice(1).map(() => true)]);
}

export function otherTable(compile: CompileResult | null, inline: InlineResult | null, semantic: SemanticResult | null = null, stages: StageCosts | null = null): string {
  const rows: string[][] = [];
  if (compile !== null) {
    rows.push([`gateway compile, ${compile.configs} generated configs (wall, process start included)`, `${compile.cliSeconds.toFixed(2)} s`]);
    rows.push(['  per config in process: check + plan (p50)', `${compile.checkPlanMicrosP50.toFixed(0)} µs`]);
    rows.push(['  per config in process: emit (p50)', `${compile.emitMicrosP50.toFixed(0)} µs`]);
    rows.push(['  per config in process: total p50 / p99', `${compile.totalMicrosP50.toFixed(0)} / ${compile.totalMicrosP99.toFixed(0)} µs`]);
  }
  if (inline !== null) {
    rows.push(['inline config, first sight: single target (p50 / p99)', `${inline.firstSightMicrosP50.toFixed(0)} / ${inline.firstSightMicrosP99.toFixed(0)} µs`]);
    rows.push(['inline config, first sight: 4-target fallback of loadbalance (p50)', `${inline.firstSightLargeMicrosP50.toFixed(0)} µs`]);
    rows.push(['inline config, same config respelt (parse + canonical hash, p50)', `${inline.respeltMicrosP50.toFixed(1)} µs`]);
    rows.push([`inline config, cached: exact text (${inline.headerBytes} B), cache full (${inline.cacheEntries} entries)`, `${inline.cachedMicros.toFixed(2)} µs`]);
    rows.push(['inline config, cached: exact text, the only config cached', `${inline.cachedAloneMicros.toFixed(2)} µs`]);
  }
  if (stages !== null) {
    rows.push(['pipeline CPU per request in process, single route (median)', `${stages.plainMicros.toFixed(1)} µs`]);
    rows.push(['  the same with 3 checks on input and output (wordCount, regexMatch, characterCount)', `${stages.guardedMicros.toFixed(1)} µs`]);
    rows.push(['  the same with a simple cache, every answer stored (miss path)', `${stages.cacheMissMicros.toFixed(1)} µs`]);
    rows.push(['  the same with a simple cache, answered from it (hit)', `${stages.cacheHitMicros.toFixed(1)} µs`]);
  }
  if (semantic !== null) {
    rows.push([`semantic lookup, ${semantic.entries} entries × ${semantic.dimensions} dims, embedding excluded (p50 / p99)`, `${semantic.lookupMicrosP50.toFixed(0)} / ${semantic.lookupMicrosP99.toFixed(0)} µs`]);
    rows.push(['  of which the search on the index thread (p50 / p99)', `${semantic.searchMicrosP50.toFixed(0)} / ${semantic.searchMicrosP99.toFixed(0)} µs`]);
    rows.push(['  paraphrase queries answered by the entry they paraphrase', `${(semantic.foundShare * 100).toFixed(1)}%`]);
    rows.push(['  filling the index (bulk, on the index thread, every core but one)', `${semantic.fillSeconds.toFixed(1)} s`]);
  }
  return rows.length === 0 ? '' : markdownTable(['measure', 'value'], rows, [false, true]);
}

export function targetTable(checks: readonly TargetCheck[]): string {
  return markdownTable(
    ['target', 'measured', 'limit', 'result', 'margin'],
    checks.map((c) => [c.target, c.value, c.limit, c.pass ? 'pass' : 'MISS', c.margin]),
    [false, true, true, false, true],
  );
}

function markdownTable(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (rightAligned[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (rightAligned[i] ? `${'-'.repeat(w + 1)}:` : `-${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
