// The CPUs' worth of time a process can use (runtime/store/sqlite/cpu-budget.ts), which decides where
// GATEWAY_LOG_WRITER=auto writes: its affinity, and a cgroup CPU quota the affinity does not show.
import { availableParallelism } from 'node:os';
import { expect, it } from 'vitest';
import { cgroupCpuQuota, cpuBudget } from '../../runtime/store/sqlite/cpu-budget.ts';

const files = (map: Record<string, string>) => (path: string): string | null => map[path] ?? null;

it('cgroup v2: the quota of cpu.max, the tightest along the path; "max" is none', () => {
  expect(cgroupCpuQuota(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000\n' }))).toBe(1);
  expect(cgroupCpuQuota(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeNull();
  const nested = {
    '/proc/self/cgroup': '0::/system.slice/gateway.service\n',
    '/sys/fs/cgroup/system.slice/gateway.service/cpu.max': '300000 100000',
    '/sys/fs/cgroup/system.slice/cpu.max': '150000 100000',
    '/sys/fs/cgroup/cpu.max': 'max 100000',
  };
  expect(cgroupCpuQuota(files(nested))).toBe(1.5);
});

it('cgroup v1: cpu.cfs_quota_us over cpu.cfs_period_us in the cpu hierarchy; -1 is none', () => {
  const v1 = (quota: string) => files({
    '/proc/self/cgroup': '9:name=systemd:/\n4:cpu,cpuacct:/docker/abc\n0::/\n',
    '/sys/fs/cgroup/cpu/docker/abc/cpu.cfs_quota_us': `${quota}\n`,
    '/sys/fs/cgroup/cpu/docker/abc/cpu.cfs_period_us': '100000\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
    '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
  });
  expect(cgroupCpuQuota(v1('50000'))).toBe(0.5);
  expect(cgroupCpuQuota(v1('-1'))).toBeNull();
});

it('no cgroup files (another system, or unreadable): no quota; the budget is the affinity, or the quota when tighter', () => {
  expect(cgroupCpuQuota(files({}))).toBeNull();
  expect(cpuBudget(files({}), 4)).toBe(4);
  expect(cpuBudget(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000' }), 4)).toBe(1);
  expect(cpuBudget(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '800000 100000' }), 2)).toBe(2);
});

it('on this machine: never more than the CPUs the process may run on', () => {
  const budget = cpuBudget();
  expect(budget).toBeGreaterThan(0);
  expect(budget).toBeLessThanOrEqual(availableParallelism());
});
