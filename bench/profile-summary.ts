// Summarises a .cpuprofile (from `npm run bench -- --cpu-prof DIR`): self time by function and by
// file, the gateway's own files apart from node internals and dependencies, and the inclusive time
// of the gateway's own functions.
// Run: node bench/profile-summary.ts DIR/gateway [top=30]   (a directory: every thread's profile, largest first)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarise(profile: CpuProfile, top = 30): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = selfTimes(profile);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, micros] of self) {
    const frame = byId.get(id)!.callFrame;
    // Frames without a URL are V8's own: (idle), (program), (garbage collector), natives like writev.
    const file = frame.url === '' ? (frame.functionName.startsWith('(') ? frame.functionName : `(native ${frame.functionName})`) : shortUrl(frame.url);
    const fn = frame.url === '' ? file : `${frame.functionName || '(anonymous)'}  ${file}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
    byFile.set(file, (byFile.get(file) ?? 0) + micros);
  }
  const idle = byFile.get('(idle)') ?? 0;
  const busy = total - idle;
  byFile.delete('(idle)');
  byFunction.delete('(idle)');
  const rows = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, micros]) => `${((micros / busy) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  return [
    `profiled ${(total / 1e6).toFixed(1)} s: busy ${(busy / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s; percentages are of busy time`,
    '', 'self time by file:', ...rows(byFile), '', 'self time by function:', ...rows(byFunction),
    '', "inclusive time of the gateway's own functions (the function and all it called, natives and dependencies included):", ...rows(inclusiveTimes(profile, self)),
  ].join('\n');
}

/** Microseconds sampled in each node itself. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  return self;
}

/**
 * Time in each of the gateway's own functions (runtime/, compiler/) and everything below it: where
 * self time scatters a stage's cost over natives and dependencies (a SQLite insert is mostly native
 * time), this adds it up under the function that asked for it. A function on the stack twice (a
 * recursion, or a callback it passes back in) counts once per sample.
 */
export function inclusiveTimes(profile: CpuProfile, self: Map<number, number> = selfTimes(profile)): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, micros] of self) {
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    const counted = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const file = shortUrl(frame.url);
      if (!file.startsWith('runtime/') && !file.startsWith('compiler/')) continue;
      const fn = `${frame.functionName || '(anonymous)'}  ${file}:${frame.lineNumber + 1}`;
      if (counted.has(fn)) continue;
      counted.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + micros);
    }
  }
  return inclusive;
}

function shortUrl(url: string): string {
  const at = url.indexOf('/node_modules/');
  if (at >= 0) return url.slice(at + 1);
  const root = url.lastIndexOf('/runtime/') >= 0 ? url.lastIndexOf('/runtime/') : url.lastIndexOf('/compiler/');
  return root >= 0 ? url.slice(root + 1) : url.replace(/^file:\/\//, '');
}

const USAGE = `Usage: node bench/profile-summary.ts (FILE.cpuprofile | DIR) [top]

Self time by file and by function, and inclusive time of the gateway's own functions, of a CPU profile (\`npm run bench -- --cpu-prof DIR\` writes one per
process and thread, under DIR/gateway, DIR/floor, …); with a directory, each of its profiles, largest
first. top: rows per table (default 30).
`;

if (import.meta.main) {
  const [path, top] = process.argv.slice(2);
  if (path === '--help' || path === '-h') process.stdout.write(USAGE);
  else if (path === undefined || !existsSync(path)) {
    process.stderr.write(`${path === undefined ? '' : `profile-summary: no such file or directory: ${path}\n\n`}${USAGE}`);
    process.exitCode = 2;
  } else {
    const files = statSync(path).isDirectory()
      ? readdirSync(path).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(path, name)).sort((a, b) => statSync(b).size - statSync(a).size)
      : [path];
    for (const file of files) process.stdout.write(`== ${file}\n${summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(top ?? 30))}\n\n`);
  }
}
