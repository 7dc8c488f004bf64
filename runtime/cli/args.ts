// Shared argument handling for the runtime subcommands: strict util.parseArgs, and one error type
// so every usage mistake prints the command's usage and exits 2.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<T extends Options>(argv: string[], options: T, positionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Prints the problem, named by its command (`gateway serve: …`, as the compiler's commands do), and the usage on stderr; returns the usage exit code. */
export function reportUsageError(command: string, err: UsageError, usage: string): number {
  process.stderr.write(`gateway ${command}: ${err.message}\n\n${usage}\n`);
  return EXIT_USAGE;
}

export function parsePort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be an integer from 0 to 65535, not ${JSON.stringify(text)}`);
  return port;
}
