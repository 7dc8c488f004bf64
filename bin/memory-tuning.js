// The memory settings `gateway serve` runs with (issue 7). Under sustained load V8 grows each
// young-generation semi-space to 32 MB and lets old space fill with promoted garbage up to several
// times its live size before a full GC, and glibc gives the threads that malloc (the request log's
// writer, V8's compilers and GC helpers) arenas of their own that keep what they freed. Bounded, a
// serving process under the whole benchmark peaks tens of MB lower than with the defaults (150-320
// MB). All are read only when a process starts, so bin/gateway.js re-executes serve once with them
// (process.execve: same pid, stdio and arguments).
// Plain JavaScript: it runs before any TypeScript.

/**
 * Semi-spaces of 4 MB, and a full GC once old space has grown 10% past what the last one left live
 * (V8 otherwise waits for up to 4×: a 503 fallback under load grew it to ~70 MB). Measured over 60,000
 * requests: 2 MB semi-spaces cost ~2 µs more GC per request for the same peak; 8 MB peaked above 120
 * MB. Old space stays unbounded: a bound small enough to matter would let clients abort the process
 * (32 MiB bodies, parsed when read); a growing heap only makes full GCs more frequent.
 */
export const SERVE_NODE_FLAGS = Object.freeze(['--max-semi-space-size=4', '--heap-growing-percent=10']);
/**
 * One malloc arena for every thread: the request log's writer (SQLite) and V8's helper threads
 * otherwise fill a second one that keeps what they freed. Interleaved against 2, with the process
 * pinned to one core and unpinned on two: 7-13 MB lower peak, the same req/s (docs/decisions.md).
 * Ignored by other C libraries.
 */
export const SERVE_ENV = Object.freeze({ MALLOC_ARENA_MAX: '1' });

/** Set to `off` to run serve with Node's and glibc's own defaults. */
export const OPT_OUT_VARIABLE = 'GATEWAY_MEMORY_TUNING';

/**
 * The part of the tuning a process started with `execArgv` and `env` still lacks; null when it lacks
 * nothing. A flag given to node (command line or NODE_OPTIONS) or a variable already set wins over ours.
 */
export function pendingTuning(execArgv, env) {
  if (env[OPT_OUT_VARIABLE]?.trim().toLowerCase() === 'off') return null;
  const given = nodeFlagsGiven(execArgv, env);
  const flags = SERVE_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
  const variables = Object.fromEntries(Object.entries(SERVE_ENV).filter(([name]) => env[name] === undefined));
  if (flags.length === 0 && Object.keys(variables).length === 0) return null;
  return { flags, env: variables };
}

/** The names of the node flags a process was given, on its command line or in NODE_OPTIONS (`--a_b` read as `--a-b`). */
export function nodeFlagsGiven(execArgv, env) {
  return new Set([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map(flagName));
}

/** V8 reads `--max_semi_space_size` and `--max-semi-space-size` alike. */
function flagName(arg) {
  return arg.split('=', 1)[0].replaceAll('_', '-');
}

/**
 * Why this process cannot re-execute itself, or null when it can. Node opens an IPC channel
 * close-on-exec, so a process started with one (fork, a supervisor, the benchmark) would lose it.
 */
export function reexecBlocker() {
  if (typeof process.execve !== 'function') return 'process.execve is not available on this platform';
  if (process.channel !== undefined) return 'it has an IPC channel, which would not survive';
  return null;
}

/** Replaces this process with itself plus the tuning; returns only if execve failed. */
export function reexec(tuning) {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...tuning.flags, ...process.argv.slice(1)], { ...process.env, ...tuning.env });
}

/** One line for stderr when the tuning cannot be applied. */
export function describeSkippedTuning(tuning, reason) {
  const settings = [...tuning.flags, ...Object.entries(tuning.env).map(([name, value]) => `${name}=${value}`)].join(' ');
  return `gateway serve: running without ${settings} (cannot re-execute: ${reason}); give them to node and its environment yourself, or set ${OPT_OUT_VARIABLE}=off\n`;
}
