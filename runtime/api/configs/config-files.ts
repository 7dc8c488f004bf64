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
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const errors: ConfigError[] = [];
  const loaded: FileConfig[] = [];
  for (const file of files) {
    const path = join(dir, file);
    const id = basename(file, '.json');
    const source = await readFile(path, 'utf8');
    const result = checkConfigSource(source, id, guardrails);
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    loaded.push({ id, path, source, config: JSON.parse(source) as Record<string, unknown>, plan: result.plan, modifiedAt: (await stat(path)).mtime.toISOString() });
  }
  if (errors.length > 0) throw new InvalidSavedConfigsError(errors);
  return loaded;
}
