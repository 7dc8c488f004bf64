// Preloaded (`--import`) into every process the benchmark starts: answers the parent's IPC requests
// for the process's own CPU time and peak RSS, and exits cleanly on request so --cpu-prof is written.
// It is no part of what it measures: one listener, idle while the load runs.

import { readdirSync, readFileSync } from 'node:fs';

export interface ProbeStats {
  /** process.cpuUsage(): user and system µs since the process started. */
  userMicros: number;
  systemMicros: number;
  rssBytes: number;
  /**
   * Peak resident set in bytes: VmHWM of /proc/self/status. Not resourceUsage().maxRSS, which on
   * Linux survives execve and so starts at the RSS of the parent that spawned the process.
   */
  peakRssBytes: number;
  /**
   * CPU µs of the process's worker threads (in the gateway: the request log's SQLite writer), part of
   * the total above; null where /proc/self/task cannot be read.
   */
  workerThreadMicros: number | null;
}

export type ProbeRequest = { type: 'stats'; id: number } | { type: 'exit' };
export type ProbeReply = { type: 'stats'; id: number; stats: ProbeStats };

if (typeof process.send === 'function') {
  process.on('message', (message: ProbeRequest) => {
    if (message.type === 'exit') process.exit(0);
    if (message.type === 'stats') {
      const cpu = process.cpuUsage();
      const stats: ProbeStats = {
        userMicros: cpu.user,
        systemMicros: cpu.system,
        rssBytes: process.memoryUsage.rss(),
        peakRssBytes: peakRss(),
        workerThreadMicros: workerThreadMicros(),
      };
      process.send!({ type: 'stats', id: message.id, stats } satisfies ProbeReply);
    }
  });
  // The parent went away (crashed or killed): leave no server behind.
  process.on('disconnect', () => process.exit(0));
  // The channel must not keep a process alive that would otherwise exit.
  process.channel?.unref();
}

function peakRss(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'latin1'));
    if (match !== null) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Linux's clock ticks per second for /proc times (USER_HZ), 100 on every mainstream build. */
const TICK_MICROS = 10_000;

/** Node names the OS thread of each worker_threads Worker "WorkerThread"; V8's own helpers are "V8Worker". */
function workerThreadMicros(): number | null {
  try {
    let ticks = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'latin1').trim() !== 'WorkerThread') continue;
      // utime and stime are fields 14 and 15; the name in parentheses before them may hold spaces.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * TICK_MICROS;
  } catch {
    return null;
  }
}
