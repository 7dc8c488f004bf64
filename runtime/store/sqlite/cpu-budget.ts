// How many CPUs' worth of time this process can use at once: the CPUs it may run on (its affinity,
// os.availableParallelism) and, in a container or a service with a CPU quota, that quota, which the
// affinity does not show (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us over cpu.cfs_period_us; the
// tightest along the process's cgroup path). A file that is missing or unreadable sets no quota.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** A file's text, or null when it cannot be read. */
export type ReadText = (path: string) => string | null;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

export function cpuBudget(read: ReadText = readText, cpus: number = availableParallelism()): number {
  const quota = cgroupCpuQuota(read);
  return quota === null ? cpus : Math.min(cpus, quota);
}

/** The tightest CPU quota on the process's cgroup path, in CPUs (1.5 for 150 ms per 100 ms); null when none is set. */
export function cgroupCpuQuota(read: ReadText): number | null {
  const membership = read('/proc/self/cgroup');
  if (membership === null) return null;
  let tightest: number | null = null;
  for (const line of membership.split('\n')) {
    // "0::/path" for cgroup v2; "4:cpu,cpuacct:/path" for a v1 hierarchy.
    const match = /^\d+:([^:]*):(\/.*)$/.exec(line.trim());
    if (match === null) continue;
    const [, controllers, path] = match;
    const v2 = controllers === '';
    if (!v2 && !controllers!.split(',').includes('cpu')) continue;
    for (let dir = path!; ; dir = parentOf(dir)) {
      const base = `/sys/fs/cgroup${v2 ? '' : '/cpu'}${dir === '/' ? '' : dir}`;
      const quota = v2 ? quotaV2(read(`${base}/cpu.max`)) : ratio(read(`${base}/cpu.cfs_quota_us`), read(`${base}/cpu.cfs_period_us`));
      if (quota !== null) tightest = tightest === null ? quota : Math.min(tightest, quota);
      if (dir === '/') break;
    }
  }
  return tightest;
}

/** "max 100000" (none) or "<quota> <period>" in microseconds. */
function quotaV2(text: string | null): number | null {
  const [quota, period] = (text ?? '').trim().split(/\s+/);
  return ratio(quota, period);
}

/** Quota over period, or null when either is not a positive number (v1 writes -1 for none, v2 "max"). */
function ratio(quota: string | null | undefined, period: string | null | undefined): number | null {
  const cpus = Number(quota) / Number(period);
  return Number(quota) > 0 && Number(period) > 0 && Number.isFinite(cpus) ? cpus : null;
}

function parentOf(dir: string): string {
  const cut = dir.replace(/\/+$/, '').lastIndexOf('/');
  return cut <= 0 ? '/' : dir.slice(0, cut);
}
