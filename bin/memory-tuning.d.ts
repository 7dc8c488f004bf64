// Types of bin/memory-tuning.js (plain JavaScript, because it runs before any TypeScript is loaded).
export interface MemoryTuning {
  /** Node/V8 flags to add. */
  flags: string[];
  /** Environment variables to add. */
  env: Record<string, string>;
}
export declare const SERVE_NODE_FLAGS: readonly string[];
export declare const SERVE_ENV: Readonly<Record<string, string>>;
export declare const OPT_OUT_VARIABLE: string;
export declare function nodeFlagsGiven(execArgv: readonly string[], env: NodeJS.ProcessEnv): Set<string>;
export declare function pendingTuning(execArgv: readonly string[], env: NodeJS.ProcessEnv): MemoryTuning | null;
export declare function reexecBlocker(): string | null;
export declare function reexec(tuning: MemoryTuning): void;
export declare function describeSkippedTuning(tuning: MemoryTuning, reason: string): string;
