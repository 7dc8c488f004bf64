// `gateway compile`: checks every saved config in a folder (and the guardrails beside it), reports
// each error located in its file, and writes the planned (and emitted) form of valid ones. It never
// writes inside the package: `npm run generate` regenerates generated/ from schema/.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RoutePlan } from '../config/route-plan.ts';
import { positionIn, SEMANTIC_CACHE_NEEDS_SERVER, SEMANTIC_CACHE_SETTING, semanticCacheMessage, semanticCachePointers } from '../config/semantic-cache.ts';
import { checkConfigSource, type ConfigError, type GuardrailLookup } from '../config/index.ts';
import { withoutByteOrderMark } from '../config/json-locate.ts';
import { parseJson } from '../config/json-parse.ts';
import { fileGuardrails, readGuardrailFolder } from '../config/guardrail-files.ts';
import { CREDENTIAL_KEYS, literalCredentials, redactCredentials, secretReferences } from '../config/secrets.ts';

/** Credential fields of a plan: the config's, and a leaf's `apiKey`. */
const PLAN_CREDENTIAL_KEYS: ReadonlySet<string> = new Set([...CREDENTIAL_KEYS, 'apiKey']);
import { emitRouterModule } from '../config/emit.ts';
import { checkProviderEndpoints, PROVIDER_LACKS_ENDPOINT } from '../config/endpoint-check.ts';
import { BREAKER_NEVER_SKIPS, BREAKER_NEVER_SKIPS_MESSAGE, idleBreakerPointers } from '../config/idle-breakers.ts';
import { FIELD_WITHOUT_EFFECT, ignoredFields } from '../config/ignored-fields.ts';

export const COMPILE_USAGE = `Usage: gateway compile --configs DIR [--guardrails DIR] [--out DIR] [--json] [--strict]

Checks every *.json file in DIR as a saved config whose ID is the file name without .json. Guardrails
a config names by ID are looked up in the guardrails folder, whose files are checked too.

Options:
  --configs DIR    folder of saved configs to check
  --guardrails DIR folder of named guardrails (default: guardrails/ beside the configs folder)
  --out DIR        write <id>.plan.json (the RoutePlan) and <id>.router.js for each valid config
  --json           print one JSON document on stdout: {"configs":[{"id","ok","errors":[…]}]}
  --strict         warnings fail too (exit 1): a credential written in a file, a \${NAME} not set here,
                   a semantic cache without its server setting, a field or breaker no strategy acts
                   on, … (docs/errors.md, "Compile warnings")
  -h, --help       show this help

Exit status: 0 when every config is valid, 1 when any is not, 2 on usage errors (and when --configs
holds no .json file: a check of nothing must not pass).`;

export interface CompiledConfigReport {
  id: string;
  file: string;
  ok: boolean;
  errors: ConfigError[];
  /** Valid, but worth a look (a semantic cache without the server setting it needs). */
  warnings: ConfigWarning[];
}

/** Every warning `gateway compile` gives: docs/errors.md lists exactly these (test/docs/errors-doc.test.ts). */
export const COMPILE_WARNING_CODES = [SEMANTIC_CACHE_NEEDS_SERVER, 'CFG_LITERAL_CREDENTIAL', 'CFG_SECRET_NOT_SET', PROVIDER_LACKS_ENDPOINT, BREAKER_NEVER_SKIPS, FIELD_WITHOUT_EFFECT] as const;

export interface ConfigWarning {
  code: (typeof COMPILE_WARNING_CODES)[number];
  pointer: string;
  line: number;
  column: number;
  message: string;
}

export async function runCompile(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        configs: { type: 'string' },
        guardrails: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean', default: false },
        strict: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`gateway compile: ${(error as Error).message}\n\n${COMPILE_USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${COMPILE_USAGE}\n`);
    return 0;
  }
  const log = options.json ? () => {} : (line: string) => process.stderr.write(`${line}\n`);

  if (options.configs === undefined) {
    process.stderr.write(`gateway compile: --configs DIR is required\n\n${COMPILE_USAGE}\n`);
    return 2;
  }

  let files: string[];
  let others: string[];
  try {
    const entries = await readdir(options.configs);
    files = entries.filter((f) => f.endsWith('.json')).sort();
    others = entries.filter((f) => !f.endsWith('.json') && !f.startsWith('.')).sort();
  } catch (error) {
    process.stderr.write(`gateway compile: cannot read --configs ${options.configs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return 2;
  }
  if (files.length === 0) {
    // A check that checked nothing must not pass in CI: the folder is most likely the wrong one.
    const skipped = others.length === 0 ? 'it is empty' : `it holds ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}`;
    process.stderr.write(`gateway compile: no config files in --configs ${options.configs} (configs are .json files; ${skipped})\n`);
    return 2;
  }
  const guardrailsDir = resolve(options.guardrails ?? join(dirname(resolve(options.configs)), 'guardrails'));
  let folder;
  try {
    folder = await readGuardrailFolder(guardrailsDir);
  } catch (error) {
    process.stderr.write(`gateway compile: cannot read --guardrails ${guardrailsDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return 2;
  }
  if (folder.files.length + folder.errors.length > 0) log(`checked ${folder.files.length + new Set(folder.errors.map((e) => e.configId)).size} guardrail file(s) in ${relative(process.cwd(), guardrailsDir) || '.'}`);
  const guardrailReports = guardrailFileReports(folder.errors, guardrailsDir);
  const reports = [...guardrailReports, ...(await compileFolder(resolve(options.configs), files, options.out === undefined ? null : resolve(options.out), log, fileGuardrails(folder.files, relative(process.cwd(), guardrailsDir) || '.')))];

  if (options.json) {
    process.stdout.write(`${JSON.stringify({ configs: reports.map(({ id, ok, errors, warnings }) => ({ id, ok, errors, warnings })) })}\n`);
  } else {
    printHuman(reports);
  }
  const failed = reports.some((r) => !r.ok) || (options.strict && reports.some((r) => r.warnings.length > 0));
  return failed ? 1 : 0;
}

/** One failed report per guardrail file with errors (valid guardrail files are not configs: they are reported by the configs that use them). */
function guardrailFileReports(errors: readonly ConfigError[], dir: string): CompiledConfigReport[] {
  const byFile = new Map<string, ConfigError[]>();
  for (const error of errors) byFile.set(error.configId ?? '', [...(byFile.get(error.configId ?? '') ?? []), error]);
  return [...byFile].map(([id, list]) => ({ id: `guardrails/${id}`, file: relative(process.cwd(), join(dir, `${id}.json`)), ok: false, errors: list, warnings: [] }));
}

async function compileFolder(dir: string, files: string[], outDir: string | null, log: (line: string) => void, guardrails: GuardrailLookup): Promise<CompiledConfigReport[]> {
  if (outDir) await mkdir(outDir, { recursive: true });
  const reports: CompiledConfigReport[] = [];
  const showProgress = files.length >= 50 && process.stderr.isTTY;
  for (const [index, file] of files.entries()) {
    const id = basename(file, '.json');
    const path = join(dir, file);
    const source = await readFile(path, 'utf8');
    const result = checkConfigSource(source, id, { guardrails });
    if (result.ok && outDir) {
      // Artifacts for review in CI: credentials written in the file appear redacted, references as written.
      const shown = redactCredentials(result.plan, PLAN_CREDENTIAL_KEYS);
      await writeFile(join(outDir, `${id}.plan.json`), `${JSON.stringify(shown, null, 2)}\n`);
      await writeFile(join(outDir, `${id}.router.js`), emitRouterModule(shown, relative(process.cwd(), path)));
    }
    reports.push({ id, file: relative(process.cwd(), path), ok: result.ok, errors: result.ok ? [] : result.errors, warnings: result.ok ? warningsOf(result.plan, source) : [] });
    if (showProgress && (index + 1) % 50 === 0) process.stderr.write(`\rchecked ${index + 1}/${files.length} configs`);
  }
  if (showProgress) process.stderr.write('\n');
  log(`checked ${files.length} config${files.length === 1 ? '' : 's'}${outDir ? `, wrote routers to ${relative(process.cwd(), outDir) || '.'}` : ''}`);
  return reports;
}

function warningsOf(plan: RoutePlan, source: string): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const setting = process.env[SEMANTIC_CACHE_SETTING];
  if (setting === undefined || setting.trim() === '') {
    for (const pointer of semanticCachePointers(plan)) warnings.push({ code: SEMANTIC_CACHE_NEEDS_SERVER, pointer, ...positionIn(source, pointer), message: semanticCacheMessage() });
  }
  const config: unknown = parseJson(withoutByteOrderMark(source));
  for (const pointer of literalCredentials(config)) {
    warnings.push({ code: 'CFG_LITERAL_CREDENTIAL', pointer, ...positionIn(source, pointer), message: 'A credential is written in the file; configs live in git. Write ${NAME} and set NAME where the gateway runs (artifacts show this one redacted).' });
  }
  for (const { pointer, provider, missing } of checkProviderEndpoints(plan.root)) {
    warnings.push({ code: PROVIDER_LACKS_ENDPOINT, pointer, ...positionIn(source, pointer), message: `This target is reached for ${missing.join(', ')} requests (its branch tests url.pathname), which "${provider}" does not offer: each would answer 400 endpoint_not_supported.` });
  }
  for (const { pointer, message } of ignoredFields(config)) warnings.push({ code: FIELD_WITHOUT_EFFECT, pointer, ...positionIn(source, pointer), message });
  for (const pointer of idleBreakerPointers(config)) {
    warnings.push({ code: BREAKER_NEVER_SKIPS, pointer, ...positionIn(source, pointer), message: BREAKER_NEVER_SKIPS_MESSAGE });
  }
  for (const { pointer, name } of secretReferences(config)) {
    if (process.env[name] === undefined || process.env[name] === '') warnings.push({ code: 'CFG_SECRET_NOT_SET', pointer, ...positionIn(source, pointer), message: `\${${name}} is not set here; serve refuses to start without it.` });
  }
  return warnings;
}

function printHuman(reports: CompiledConfigReport[]): void {
  const lines: string[] = [];
  for (const report of reports) {
    if (report.ok) {
      lines.push(`ok    ${report.id}`);
      for (const warning of report.warnings) {
        lines.push(`  warning ${report.file}:${warning.line}:${warning.column}  ${warning.code}  ${warning.pointer}`);
        lines.push(`    ${warning.message}`);
      }
      continue;
    }
    lines.push(`error ${report.id} (${report.errors.length} error${report.errors.length === 1 ? '' : 's'})`);
    const sorted = [...report.errors].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    for (const error of sorted) {
      lines.push(`  ${report.file}:${error.line}:${error.column}  ${error.code}  ${error.pointer || '/'}`);
      lines.push(`    ${error.message}${error.hint ? `\n    hint: ${error.hint}` : ''}`);
    }
  }
  const failed = reports.filter((r) => !r.ok).length;
  lines.push(failed === 0 ? `${reports.length} config(s) valid` : `${failed} of ${reports.length} config(s) invalid`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
