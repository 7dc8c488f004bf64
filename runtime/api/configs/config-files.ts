// Saved configs from `--configs DIR`: every `*.json` is compiled at start, and the gateway refuses to
// start when any is invalid, listing every error (the same rule as `gateway compile`).
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { checkConfigSource, type ConfigError, type GuardrailLookup, type RoutePlan } from '../../../compiler/config/index.ts';
import { InvalidSavedConfigsError } from '../../inference/index.ts';

export interface FileConfig {
  id: string;
  /** The file, and its text (to locate a problem found after compiling). */
  path: string;
  source: string;
  config: Record<string, unknown>;
  plan: RoutePlan;
  /** The file's modification time (ISO 8601), shown as created_at / last_updated_at. */
  modifiedAt: string;
}

export async function loadConfigFiles(dir: string, guardrails: GuardrailLookup | null = null): Promise<FileConfig[]> {
  const { files, errors } = await readConfigFiles(dir, guardrails);
  if (errors.length > 0) throw new InvalidSavedConfigsError(errors);
  return files;
}

/** Every `*.json` of `dir` compiled: the valid ones, and every error of the others (each with its configId). */
export async function readConfigFiles(dir: string, guardrails: GuardrailLookup | null = null): Promise<{ files: FileConfig[]; errors: ConfigError[] }> {
  const names = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const errors: ConfigError[] = [];
  const files: FileConfig[] = [];
  for (const file of names) {
    const path = join(dir, file);
    const id = basename(file, '.json');
    let source: string;
    let modified: Date;
    try {
      source = await readFile(path, 'utf8');
      modified = (await stat(path)).mtime;
    } catch (error) {
      // Gone between the listing and the read (an editor's rename): the next reload sees the folder as it is.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    // File configs are what was reviewed and deployed: their `${NAME}` references resolve here.
    const result = checkConfigSource(source, id, { guardrails, secrets: { env: process.env } });
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    files.push({ id, path, source, config: JSON.parse(source) as Record<string, unknown>, plan: result.plan, modifiedAt: modified.toISOString() });
  }
  return { files, errors };
}
