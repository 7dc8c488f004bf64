// `gateway serve` bounds its memory by default (issue 7): it re-executes itself once (same pid) with
// the node flags and environment of bin/memory-tuning.js unless they are given or turned off, and a
// start after the first finds every module in Node's compile cache, so it never loads the TypeScript
// stripper, nor Node's own bundled undici. Each case is a real serve process; a preloaded fixture reports what it ran with.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pendingTuning, SERVE_ENV, SERVE_NODE_FLAGS } from '../../bin/memory-tuning.js';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const REPORTER = fileURLToPath(new URL('./fixtures/serve-report.mjs', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'gateway-serve-memory-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface ServeReport {
  pid: number;
  execArgv: string[];
  mallocArenaMax: string | null;
  typeStripperLoaded: boolean;
  bundledUndiciLoaded: boolean;
}

interface ServeRun {
  report: ServeReport;
  /** The command line of the serving process as the system saw it (null off Linux). */
  cmdline: string[] | null;
  spawnedPid: number;
  stderr: string;
  /** Whether the IPC channel (when asked for) was still open once the server listened. */
  channelOpen: boolean | null;
}

let runs = 0;

/** Starts serve, waits until it listens, reads its command line, stops it with SIGTERM and reads its report. */
async function serveOnce(env: Record<string, string>, options: { ipc?: boolean } = {}): Promise<ServeRun> {
  const id = ++runs;
  const reportFile = join(temp, `report-${id}.json`);
  const base = { ...process.env };
  for (const name of ['NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'GATEWAY_MEMORY_TUNING', 'NODE_COMPILE_CACHE']) delete base[name];
  const child = spawn(process.execPath, ['--import', REPORTER, BIN, 'serve', '--port', '0', '--data', join(temp, `data-${id}`)], {
    env: { ...base, GATEWAY_API_KEY: '', SERVE_REPORT: reportFile, ...env },
    stdio: options.ipc === true ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('gateway listening on ')) resolve();
    });
    void exited.then(() => reject(new Error(`serve exited before it was ready: ${stderr}`)));
  });
  const procCmdline = `/proc/${child.pid}/cmdline`;
  const cmdline = existsSync(procCmdline) ? readFileSync(procCmdline, 'utf8').split('\0').filter(Boolean) : null;
  const channelOpen = options.ipc === true ? child.connected : null;
  child.kill('SIGTERM');
  await exited;
  return { report: JSON.parse(readFileSync(reportFile, 'utf8')) as ServeReport, cmdline, spawnedPid: child.pid!, stderr, channelOpen };
}

const FLAG = SERVE_NODE_FLAGS[0];
const GROWTH = SERVE_NODE_FLAGS[1];

describe.runIf(typeof process.execve === 'function')('gateway serve', () => {
  it('re-executes itself with the memory tuning; a later start loads no module through the TypeScript stripper', async () => {
    await serveOnce({});
    const { report, cmdline, spawnedPid, stderr } = await serveOnce({});
    expect(SERVE_NODE_FLAGS).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=10']);
    expect(SERVE_ENV).toEqual({ MALLOC_ARENA_MAX: '1' });
    expect(report.pid).toBe(spawnedPid);
    expect(report.execArgv).toContain(FLAG);
    if (cmdline !== null) expect(cmdline).toContain(FLAG);
    expect(report.mallocArenaMax).toBe('1');
    expect(report.typeStripperLoaded).toBe(false);
    expect(report.bundledUndiciLoaded).toBe(false);
    expect(stderr).not.toContain('running without');
  });

  it('keeps the flags and variables given to it', async () => {
    const { report, cmdline } = await serveOnce({ NODE_OPTIONS: '--max-semi-space-size=16', MALLOC_ARENA_MAX: '4' });
    expect(report.execArgv.some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
    if (cmdline !== null) expect(cmdline.some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
    expect(report.mallocArenaMax).toBe('4');
  });

  it('runs with Node’s own defaults when GATEWAY_MEMORY_TUNING=off', async () => {
    const { report } = await serveOnce({ GATEWAY_MEMORY_TUNING: 'off' });
    expect(report.execArgv).not.toContain(FLAG);
    expect(report.mallocArenaMax).toBe(null);
  });

  it('keeps an IPC channel open rather than re-executing, and says so', async () => {
    const { report, stderr, channelOpen } = await serveOnce({}, { ipc: true });
    expect(channelOpen).toBe(true);
    expect(report.execArgv).not.toContain(FLAG);
    expect(stderr).toContain(`running without ${FLAG} ${GROWTH} MALLOC_ARENA_MAX=1 (cannot re-execute: it has an IPC channel`);
  });
});

describe('pendingTuning', () => {
  it('adds only what is missing, whatever the flag spelling or where it was given', () => {
    expect(pendingTuning([], {})).toEqual({ flags: [FLAG, GROWTH], env: { MALLOC_ARENA_MAX: '1' } });
    expect(pendingTuning(['--max_semi_space_size=8'], {})).toEqual({ flags: [GROWTH], env: { MALLOC_ARENA_MAX: '1' } });
    expect(pendingTuning([], { NODE_OPTIONS: '--inspect --max-semi-space-size=8 --heap_growing_percent=50' })).toEqual({ flags: [], env: { MALLOC_ARENA_MAX: '1' } });
    expect(pendingTuning(['--import', 'x.ts'], { MALLOC_ARENA_MAX: '8' })).toEqual({ flags: [FLAG, GROWTH], env: {} });
    expect(pendingTuning([FLAG, GROWTH], { MALLOC_ARENA_MAX: '1' })).toBe(null);
    expect(pendingTuning([], { GATEWAY_MEMORY_TUNING: 'off' })).toBe(null);
  });
});

it('gateway serve --help names the tuning and how to turn it off', () => {
  const { stdout } = spawnSync(process.execPath, [BIN, 'serve', '--help'], { encoding: 'utf8' });
  for (const flag of SERVE_NODE_FLAGS) expect(stdout).toContain(flag);
  for (const [name, value] of Object.entries(SERVE_ENV)) expect(stdout).toContain(`${name}=${value}`);
  expect(stdout).toContain('GATEWAY_MEMORY_TUNING        off');
});
