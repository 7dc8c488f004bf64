// Files the gateway reads from beside its own sources (the store's migrations, the model catalog,
// the request-log worker) and the configs a one-file build carries. `gateway build` embeds them at
// build time as `__GATEWAY_EMBEDDED_FILES__` (repo-relative path → text); everywhere else they are
// read from the repository on disk. Configs and guardrails of a build live under the virtual folders
// `embedded:configs` and `embedded:guardrails`.
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

declare const __GATEWAY_EMBEDDED_FILES__: Readonly<Record<string, string>> | undefined;

/** What the build embedded; null when running from the repository. */
export const EMBEDDED_FILES: Readonly<Record<string, string>> | null = typeof __GATEWAY_EMBEDDED_FILES__ === 'undefined' ? null : __GATEWAY_EMBEDDED_FILES__;

/** The prefix of a folder that lives in the build, not on disk. */
export const EMBEDDED_PREFIX = 'embedded:';
export const EMBEDDED_CONFIGS = `${EMBEDDED_PREFIX}configs`;
export const EMBEDDED_GUARDRAILS = `${EMBEDDED_PREFIX}guardrails`;

/** The request log's SQLite writer (a worker thread), bundled on its own: a worker starts from its own module. */
export const LOG_WRITER_WORKER = 'runtime/store/sqlite/log-writer-worker.ts';
/** The semantic cache's index thread, bundled the same way (it loads the native usearch from beside the build). */
export const SEMANTIC_INDEX_WORKER = 'runtime/pipeline/cache/semantic-index-worker.ts';

/** Where the repository is, when not embedded (computed on use: a bundled worker's module URL is a data: URL). */
function repoUrl(path: string): URL {
  return new URL(`../../${path}`, import.meta.url);
}

/** A file of the repository by its repo-relative path. */
export function repoFileText(path: string): string {
  const embedded = EMBEDDED_FILES?.[path];
  if (embedded !== undefined) return embedded;
  return readFileSync(repoUrl(path), 'utf8');
}

/** The file names in a folder of the repository (`runtime/store/migrations/sqlite/`), sorted. */
export function repoFolder(path: string): string[] {
  if (EMBEDDED_FILES !== null) return namesUnder(path);
  return readdirSync(repoUrl(path)).sort();
}

/** What a build says about itself (embedded as `embedded:build.json`). */
export interface BuildInfo {
  built_at: string;
  configs: string[];
  guardrails: string[];
  /** Optional parts the build does not carry, and when they would be needed. */
  left_out: string[];
}

export const BUILD_INFO = `${EMBEDDED_PREFIX}build.json`;

/** The build's own description; null when running from the repository. */
export function buildInfo(): BuildInfo | null {
  const text = EMBEDDED_FILES?.[BUILD_INFO];
  return text === undefined ? null : (JSON.parse(text) as BuildInfo);
}

/** A JSON file of a configs or guardrails folder, on disk or in the build. */
export interface FolderFile {
  name: string;
  path: string;
  text: string;
  modifiedAt: Date;
}

/**
 * The `*.json` files of a folder, sorted by name; null when the folder does not exist. A file that
 * vanished between the listing and the read (an editor's rename) is skipped: the next read sees the
 * folder as it is.
 */
export async function jsonFilesIn(dir: string): Promise<FolderFile[] | null> {
  if (isEmbeddedFolder(dir)) {
    const builtAt = new Date(buildInfo()?.built_at ?? 0);
    return [...embeddedFolder(dir)].filter(([name]) => name.endsWith('.json')).map(([name, text]) => ({ name, path: `${dir}/${name}`, text, modifiedAt: builtAt }));
  }
  let names: string[];
  try {
    names = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const files: FolderFile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      files.push({ name, path, text: await readFile(path, 'utf8'), modifiedAt: (await stat(path)).mtime });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
  }
  return files;
}

export function isEmbeddedFolder(dir: string): boolean {
  return dir.startsWith(EMBEDDED_PREFIX);
}

/** The files of an `embedded:` folder, by name; empty when the build has none. */
export function embeddedFolder(dir: string): Map<string, string> {
  const prefix = `${dir}/`;
  return new Map(namesUnder(prefix).map((name) => [name, EMBEDDED_FILES![prefix + name]]));
}

function namesUnder(prefix: string): string[] {
  if (EMBEDDED_FILES === null) return [];
  return Object.keys(EMBEDDED_FILES).filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('/')).map((key) => key.slice(prefix.length)).sort();
}
