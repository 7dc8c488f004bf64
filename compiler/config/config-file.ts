// One config file checked the way the CLI commands that read one file check it (`explain`,
// `simulate`): the named guardrails from the folder beside the configs folder (or the one given),
// `${NAME}` references kept as written, every error located for the terminal.
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileGuardrails, readGuardrailFolder } from './guardrail-files.ts';
import { checkConfigSource, type CheckResult, type ConfigError } from './index.ts';

/** Thrown when the file cannot be read at all (a usage problem, not an invalid config). */
export class UnreadableConfigFile extends Error {}

/** Reads and checks CONFIG; `guardrailsDir` defaults to `guardrails/` beside the config's folder. */
export async function checkConfigFile(file: string, guardrailsDir?: string): Promise<CheckResult> {
  const path = resolve(file);
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    throw new UnreadableConfigFile(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const folder = resolve(guardrailsDir ?? join(dirname(dirname(path)), 'guardrails'));
  const guardrails = fileGuardrails((await readGuardrailFolder(folder)).files, folder);
  return checkConfigSource(source, basename(path, '.json'), { guardrails });
}

/** `file:line:column  code  pointer`, the message, and the hint when there is one. */
export function formatConfigError(file: string, error: ConfigError): string {
  return `${file}:${error.line}:${error.column}  ${error.code}  ${error.pointer || '/'}\n  ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ''}\n`;
}
