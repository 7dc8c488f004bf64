// Runs a command's in-process entry point with process.stdout and process.stderr captured, from the
// repository root when `cwd` asks (reported paths are relative to it; worker threads cannot chdir, so
// it only changes when the run did not start there).
import { vi } from 'vitest';

export interface Captured<T> {
  result: T;
  stdout: string;
  stderr: string;
}

export async function capturedOutput<T>(run: () => Promise<T>, cwd?: string): Promise<Captured<T>> {
  const out = { stdout: '', stderr: '' };
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true));
  const started = process.cwd();
  const moved = cwd !== undefined && started !== cwd;
  if (moved) process.chdir(cwd);
  try {
    const result = await run();
    return { result, ...out };
  } finally {
    if (moved) process.chdir(started);
    vi.restoreAllMocks();
  }
}
