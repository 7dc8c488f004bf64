// Starts the benchmark's servers as separate processes (each with the probe preloaded), waits for
// their "listening on <url>" line, reads their CPU and RSS over IPC, optionally pins them to a core.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProbeReply, ProbeRequest, ProbeStats } from './probe.ts';

const PROBE = fileURLToPath(new URL('./probe.ts', import.meta.url));
const READY_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 10_000;

export interface BenchProcess {
  name: string;
  url: string;
  pid: number;
  stats(): Promise<ProbeStats>;
  /** Asks the process to exit (which writes its --cpu-prof), then kills it if it lingers. */
  stop(): Promise<void>;
}

export interface StartOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** CPU list for taskset, e.g. "1"; null leaves placement to the OS. */
  cpus?: string | null;
}

/**
 * Runs the script once to its end, as startProcess would start it but with `args` and no IPC channel,
 * so that Node's compile cache holds its modules. The gateway fills the cache on its first start
 * (bin/gateway.js) and its later starts load no module through the TypeScript stripper; a first run
 * with `serve --help` makes the measured start such a later start, whatever ran before the bench.
 */
export function fillCompileCache(script: string, args: string[], options: StartOptions = {}): void {
  execFileSync(process.execPath, [...(options.nodeFlags ?? []), '--import', PROBE, script, ...args], {
    env: { ...process.env, ...options.env },
    stdio: 'ignore',
  });
}

export async function startProcess(name: string, script: string, options: StartOptions = {}): Promise<BenchProcess> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', PROBE, script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stderrTail = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => fail(new Error(`${name} did not report ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${name} stderr:\n${stderrTail}`));
    };
    child.once('exit', (code, signal) => fail(new Error(`${name} exited early (${signal ?? code})`)));
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match !== null) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(match[1]);
      }
    });
  });
  if (options.cpus != null) pin(child.pid!, options.cpus);
  return wrap(name, child, url);
}

/** Pins every thread of a process (main, GC and libuv workers) to the CPU list. */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

export function canPin(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function wrap(name: string, child: ChildProcess, url: string): BenchProcess {
  let nextId = 0;
  const waiting = new Map<number, (stats: ProbeStats) => void>();
  child.on('message', (message: ProbeReply) => {
    if (message.type === 'stats') {
      waiting.get(message.id)?.(message.stats);
      waiting.delete(message.id);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    url,
    pid: child.pid!,
    stats() {
      const id = nextId++;
      return new Promise<ProbeStats>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not answer a stats request`)), 5000);
        waiting.set(id, (stats) => {
          clearTimeout(timer);
          resolve(stats);
        });
        child.send({ type: 'stats', id } satisfies ProbeRequest);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'exit' } satisfies ProbeRequest);
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
