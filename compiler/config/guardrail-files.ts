// File guardrails: `<id>.json` in the guardrails folder beside the configs, holding what
// PUT /v1/guardrails/{id} takes (schema/requests/guardrail-update.json). Checked like config files
// (every error with its code, pointer and line:column); `gateway compile` and `serve` both read them,
// and a config names one by its ID.
import { basename } from 'node:path';
import { type FolderFile, jsonFilesIn } from './embedded-files.ts';
import { validateGuardrailUpdate } from '../../generated/validators.js';
import type { ConfigError } from './errors.ts';
import { guardrailMap, type GuardrailLookup, type NamedGuardrail } from './guardrail-lookup.ts';
import { checkNamedGuardrail } from './hook-checks.ts';
import { escapePointerToken, locate, parseWithPositions } from './json-locate.ts';

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export interface GuardrailFile {
  id: string;
  path: string;
  name: string | null;
  guardrail: NamedGuardrail;
  /** The file's modification time (ISO 8601). */
  modifiedAt: string;
}

export type GuardrailCheck = { ok: true; name: string | null; guardrail: NamedGuardrail } | { ok: false; errors: ConfigError[] };

/** Checks one guardrail's JSON text; errors are located in it. */
export function checkGuardrailSource(source: string, id: string): GuardrailCheck {
  const parsed = parseWithPositions(source);
  if (!parsed.ok) return { ok: false, errors: [{ code: 'CFG_INVALID_JSON', configId: id, pointer: '', message: `Not valid JSON: ${parsed.message}.`, ...parsed.position }] };
  const checked = checkGuardrailValue(parsed.value);
  if (checked.ok) return checked;
  return { ok: false, errors: checked.errors.map((error) => ({ ...error, configId: id, ...locate(parsed.map, error.pointer, error.code === 'CFG_UNKNOWN_KEY') })) };
}

/** Checks a parsed guardrail (a file's, or an API body after its request schema). */
export function checkGuardrailValue(value: unknown): GuardrailCheck {
  if (!validateGuardrailUpdate(value)) {
    const errors = (validateGuardrailUpdate.errors ?? []).map((e): ConfigError => {
      const extra = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty?: unknown }).additionalProperty) : null;
      return extra === null
        ? { code: 'CFG_SCHEMA_VIOLATION', pointer: e.instancePath, message: `${e.instancePath || 'The guardrail'} ${e.message ?? 'is not valid'}.` }
        : { code: 'CFG_UNKNOWN_KEY', pointer: `${e.instancePath}/${escapePointerToken(extra)}`, message: `Unknown key "${extra}".`, hint: 'a guardrail has name, checks, deny, async, on_fail and on_success' };
    });
    return { ok: false, errors };
  }
  const { name, ...guardrail } = value as NamedGuardrail & { name?: string | null };
  const errors = checkNamedGuardrail(guardrail as unknown as Record<string, unknown>);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, name: name ?? null, guardrail };
}

/** Every `*.json` of `dir` (none when it does not exist), with every error of every file. */
export async function readGuardrailFolder(dir: string): Promise<{ files: GuardrailFile[]; errors: ConfigError[] }> {
  return checkGuardrailFiles((await jsonFilesIn(dir)) ?? []);
}

/** Checks a folder's files already read: each valid one as a GuardrailFile, every error of the others. */
export function checkGuardrailFiles(found: readonly FolderFile[]): { files: GuardrailFile[]; errors: ConfigError[] } {
  const files: GuardrailFile[] = [];
  const errors: ConfigError[] = [];
  for (const file of found) {
    const id = basename(file.name, '.json');
    if (!ID.test(id)) {
      errors.push({ code: 'CFG_SCHEMA_VIOLATION', configId: id, pointer: '', line: 1, column: 1, message: `The file name "${file.name}" is not a guardrail ID: letters, digits, _, . and - (at most 128), starting with a letter or digit.` });
      continue;
    }
    const checked = checkGuardrailSource(file.text, id);
    if (!checked.ok) errors.push(...checked.errors);
    else files.push({ id, path: file.path, name: checked.name, guardrail: checked.guardrail, modifiedAt: file.modifiedAt.toISOString() });
  }
  return { files, errors };
}

/** A lookup over file guardrails. */
export function fileGuardrails(files: readonly GuardrailFile[], dir: string): GuardrailLookup {
  return guardrailMap(new Map(files.map((f) => [f.id, f.guardrail])), `the guardrails folder ${dir}`);
}
