// Throughput runs through wrk (Debian's `wrk` package), a C load generator in its own process: at 32
// connections autocannon in this Node process competes with the process under test for two cores,
// wrk far less. A Lua script sets the method, headers and body and prints wrk's own totals as JSON.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadTarget, ThroughputResult } from './load.ts';

export function wrkAvailable(): boolean {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  // Debian's build prints "wrk debian/4.1.0-3 [epoll] …" and exits 1 for --version.
  return probe.error === undefined && /^wrk \S/m.test(`${probe.stdout}${probe.stderr}`);
}

function luaString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function script(target: LoadTarget): string {
  const lines = [`wrk.method = ${luaString(target.method)}`];
  if (target.body !== undefined) lines.push(`wrk.body = ${luaString(target.body)}`);
  for (const [name, value] of Object.entries(target.headers)) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  // `done` runs once at the end with wrk's totals; errors.status counts answers that were not 2xx/3xx.
  lines.push('function done(summary, latency, requests)');
  lines.push('  local e = summary.errors');
  lines.push('  io.write(string.format("WRK_RESULT {\\"requests\\":%d,\\"duration_us\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d}\\n", summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout))');
  lines.push('end');
  return `${lines.join('\n')}\n`;
}

/** `cpus`: the CPU list wrk is pinned to (taskset), or null. */
export async function wrkThroughput(target: LoadTarget, connections: number, seconds: number, cpus: string | null): Promise<ThroughputResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const file = join(dir, 'load.lua');
  writeFileSync(file, script(target));
  const wrkArgs = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '10s', '-s', file, new URL(target.path, target.url).href];
  const [command, args] = cpus === null ? ['wrk', wrkArgs] : ['taskset', ['-c', cpus, 'wrk', ...wrkArgs]];
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
      child.stderr.setEncoding('utf8').on('data', (text: string) => (out += text));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${out}`))));
    });
    const line = /WRK_RESULT (\{.*\})/.exec(output);
    if (line === null) throw new Error(`wrk printed no result: ${output}`);
    const r = JSON.parse(line[1]) as { requests: number; duration_us: number; connect: number; read: number; write: number; status: number; timeout: number };
    const failures = r.connect + r.read + r.write + r.status + r.timeout;
    const secondsRun = r.duration_us / 1e6;
    const ok = Math.max(0, r.requests - r.status);
    return { requestsPerSecond: ok / secondsRun, requests: ok, failures, seconds: secondsRun };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
