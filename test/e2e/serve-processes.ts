// Real `gateway serve` processes and private redis-server instances for the tests that are about
// several processes or a Redis that dies.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Stops serve processes the way a supervisor does (SIGTERM: drain, then exit) and waits for them. */
export async function stopServes(...processes: ServeProcess[]): Promise<void> {
  for (const p of processes) p.child.kill('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
}

/**
 * Starts `gateway serve --port 0 --data DIR [extra args]` and resolves with its URL once it listens.
 * `entry` runs another build of the command (a one-file bundle), from `cwd`.
 */
export function startServe(env: NodeJS.ProcessEnv, dataDir: string, args: string[] = [], entry: { file: string; cwd?: string } = { file: BIN }): Promise<ServeProcess> {
  const child = spawn(process.execPath, [entry.file, 'serve', '--port', '0', '--data', dataDir, ...args], { env: { ...process.env, ...env }, cwd: entry.cwd });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const line = /gateway listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (line !== null) resolve({ url: line[1], child, exited });
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILL, and wait for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty). */
  restart(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port (or `port`), so killing it disturbs no other test;
 * `args`: more of its command-line settings.
 */
export async function startPrivateRedis(options: { port?: number; args?: readonly string[] } = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  let server: ChildProcess;
  const start = async () => {
    // Replication (a test's failover) would write snapshot files into the working directory: the
    // snapshot goes over the socket and is loaded from it instead, and the directory is the system's
    // temporary one.
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0', '--repl-diskless-load', 'swapdb', ...(options.args ?? [])], { cwd: tmpdir() });
    await waitForPort(port);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const gone = new Promise((resolve) => server.on('exit', resolve));
      server.kill('SIGKILL');
      await gone;
    },
    restart: start,
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listened on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Probes until `done` holds or `timeoutMs` passed, and returns the last value either way (the caller asserts on it). */
export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
