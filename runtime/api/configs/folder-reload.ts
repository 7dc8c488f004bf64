// Hot reload of the --configs and guardrails folders. A change on disk (seen by fs.watch, or asked for
// with SIGHUP) reloads both: guardrails first, since configs name them. A valid file is swapped in
// atomically (requests in flight finish on the router they started with); an invalid one keeps what
// was loaded before and logs every error, located; a deleted file stops routing. Reloads run one at
// a time; a burst of writes (an editor saves in several steps) makes one reload.
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import { type GuardrailFile, readGuardrailFolder } from '../../../compiler/config/guardrail-files.ts';
import type { ConfigError } from '../../../compiler/config/index.ts';
import { positionIn, semanticCacheErrors } from '../../../compiler/config/semantic-cache.ts';
import type { GatewayLogger } from '../../core/log.ts';
import type { GuardrailCatalog } from '../guardrails/guardrail-catalog.ts';
import type { ConfigCatalog } from './config-catalog.ts';
import { type FileConfig, readConfigFiles } from './config-files.ts';

/** How long a burst of file events is collected before one reload. */
const SETTLE_MS = 100;

export interface FolderReloadDeps {
  configsDir: string;
  guardrailsDir: string | null;
  configs: ConfigCatalog;
  guardrails: GuardrailCatalog;
  logger: GatewayLogger;
  /** Whether this gateway runs semantic caches; without, a file changed to have one is invalid (it kept the start from passing too). */
  semanticCache: boolean;
}

export class FolderReload {
  readonly #deps: FolderReloadDeps;
  #running: Promise<void> = Promise.resolve();
  #reloads = 0;
  #lastReloadAt: string | null = null;

  constructor(deps: FolderReloadDeps) {
    this.#deps = deps;
  }

  /** The loaded file configs, as one content hash: two processes with the same files report the same revision. */
  revision(): { revision: string; files: number; reloads: number; last_reload_at: string | null } {
    const files = this.#deps.configs.files();
    const hash = createHash('sha256');
    for (const file of files) hash.update(`${file.id}\u0000${file.source}\u0000`);
    for (const file of this.#deps.guardrails.files()) hash.update(`guardrail:${file.id}\u0000${JSON.stringify(file.guardrail)}\u0000`);
    return { revision: hash.digest('hex').slice(0, 12), files: files.length, reloads: this.#reloads, last_reload_at: this.#lastReloadAt };
  }

  /** Reloads both folders now (after any reload already running). */
  reload(reason: string): Promise<void> {
    const next = this.#running.then(() => this.#reload(reason));
    this.#running = next.catch((error: unknown) => this.#deps.logger.error('config_reload_failed', { reason, message: (error as Error).message }));
    return this.#running;
  }

  /** Watches both folders; the returned function stops watching. */
  watch(): () => void {
    let timer: NodeJS.Timeout | null = null;
    const changed = (_event: string, name: string | null): void => {
      // Only config and guardrail files (*.json) count: a log or the data folder kept beside them
      // would reload the folders on every write, and a reload that logs an invalid file writes
      // such a log (a loop). A change whose name the platform does not give reloads.
      if (name !== null && !name.endsWith('.json')) return;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        void this.reload('file change');
      }, SETTLE_MS);
    };
    const watchers: FSWatcher[] = [];
    for (const dir of [this.#deps.configsDir, this.#deps.guardrailsDir]) {
      if (dir === null) continue;
      try {
        const watcher = watch(dir, { persistent: false }, changed);
        watcher.on('error', (error) => this.#deps.logger.warn('config_watch_failed', { dir, message: error.message }));
        watchers.push(watcher);
      } catch (error) {
        // A guardrails folder that does not exist yet is not watched (SIGHUP still reloads).
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return () => {
      if (timer !== null) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    };
  }

  async #reload(reason: string): Promise<void> {
    const { configsDir, guardrailsDir, configs, guardrails, logger } = this.#deps;
    const changedGuardrails = guardrailsDir === null ? [] : guardrails.replaceFiles(await this.#guardrailFiles(guardrailsDir));
    const { files, errors } = withoutUnrunnable(await readConfigFiles(configsDir, guardrails), this.#deps.semanticCache);
    this.#logErrors(errors, (id) => join(configsDir, `${id}.json`));
    // A file that no longer compiles keeps the config loaded from it before.
    const failed = new Set(errors.map((e) => e.configId ?? ''));
    const kept = [...failed].map((id) => configs.file(id)).filter((file): file is FileConfig => file !== undefined);
    const changedConfigs = configs.replaceFiles([...files, ...kept]);
    this.#reloads++;
    this.#lastReloadAt = new Date().toISOString();
    if (changedGuardrails.length + changedConfigs.length + errors.length > 0) {
      logger.info('configs_reloaded', { reason, revision: this.revision().revision, configs_changed: changedConfigs, guardrails_changed: changedGuardrails, invalid_files: [...failed] });
    }
  }

  async #guardrailFiles(dir: string): Promise<GuardrailFile[]> {
    const { files, errors } = await readGuardrailFolder(dir);
    this.#logErrors(errors, (id) => join(dir, `${id}.json`));
    const failed = new Set(errors.map((e) => e.configId ?? ''));
    const kept = [...failed].map((id) => this.#deps.guardrails.file(id)).filter((file): file is GuardrailFile => file !== undefined);
    return [...files, ...kept];
  }

  #logErrors(errors: readonly FileProblem[], pathOf: (id: string) => string): void {
    for (const error of errors) {
      this.#deps.logger.error('config_file_invalid', { file: `${pathOf(error.configId ?? '')}:${error.line ?? 1}:${error.column ?? 1}`, code: error.code, pointer: error.pointer || '/', message: error.message, ...(error.hint ? { hint: error.hint } : {}), kept: 'the version loaded before, if any' });
    }
  }
}

/** A compile error, or a compile warning that this gateway treats as one (a semantic cache it cannot run). */
type FileProblem = Omit<ConfigError, 'code'> & { code: string };

/** Files whose semantic caches this gateway cannot run, moved to the errors, located as a start would locate them. */
function withoutUnrunnable(read: { files: FileConfig[]; errors: ConfigError[] }, semanticCache: boolean): { files: FileConfig[]; errors: FileProblem[] } {
  if (semanticCache) return read;
  const files: FileConfig[] = [];
  const errors: FileProblem[] = [...read.errors];
  for (const file of read.files) {
    const unrunnable = semanticCacheErrors(file.plan);
    if (unrunnable.length === 0) files.push(file);
    else for (const error of unrunnable) errors.push({ ...error, configId: file.id, ...positionIn(file.source, error.pointer) });
  }
  return { files, errors };
}
