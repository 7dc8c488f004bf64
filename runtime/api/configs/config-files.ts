// Saved configs from `--configs DIR`: every `*.json` is compiled at start, and the gateway refuses to
// start when any is invalid, listing every error (the same rule as `gateway compile`).
import { basename } from 'node:path';
import { jsonFilesIn } from '../../../compiler/config/embedded-files.ts';
import { checkConfigSource, type ConfigError, type GuardrailLookup, type RoutePlan } from '../../../compiler/config/index.ts';
import { withoutByteOrderMark } from '../../../compiler/config/json-locate.ts';
import { InvalidSavedConfigsError } from '../../inference/index.ts';
import { TimeSlice } from '../../core/time-slice.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';

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
  const errors: ConfigError[] = [];
  const files: FileConfig[] = [];
  const found = await jsonFilesIn(dir);
  if (found === null) throw new Error(`the configs folder ${dir} does not exist`);
  // A reload runs while the gateway serves: a thousand configs (~0.2 s of compiling) go in slices.
  const slice = new TimeSlice();
  for (const file of found) {
    await slice.pause();
    const id = basename(file.name, '.json');
    // File configs are what was reviewed and deployed: their `${NAME}` references resolve here.
    const result = checkConfigSource(file.text, id, { guardrails, secrets: { env: process.env } });
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    files.push({ id, path: file.path, source: file.text, config: parseJson(withoutByteOrderMark(file.text)) as Record<string, unknown>, plan: result.plan, modifiedAt: file.modifiedAt.toISOString() });
  }
  return { files, errors };
}
