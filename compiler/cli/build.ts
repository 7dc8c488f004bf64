// `gateway build --configs DIR --out DIR`: one ESM file (esbuild) holding the runtime, the generated
// validators, the store's migrations, the model catalog and the configs (and guardrails) of DIR, plus
// its source map. `node gateway.mjs serve` runs it in an empty folder with no node_modules. The
// configs are checked now (an invalid one fails the build) and compiled again when the bundle starts,
// which is when their `${NAME}` references resolve: the file never holds a resolved secret.
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { BUILD_INFO, type BuildInfo, EMBEDDED_CONFIGS, EMBEDDED_GUARDRAILS, type FolderFile, jsonFilesIn, LOG_WRITER_WORKER, repoFileText, repoFolder, SEMANTIC_INDEX_WORKER } from '../config/embedded-files.ts';
import { formatConfigError } from '../config/config-file.ts';
import { checkGuardrailFiles, fileGuardrails } from '../config/guardrail-files.ts';
import { checkConfigSource, type ConfigError } from '../config/index.ts';

export const BUILD_USAGE = `Usage: gateway build --configs DIR --out DIR [--guardrails DIR]

Builds one ESM file, OUT/gateway.mjs (with OUT/gateway.mjs.map), that serves the configs of DIR
with no node_modules beside it: \`node gateway.mjs serve\`. The configs and the guardrails beside
them are checked first; any error fails the build. \${NAME} references stay as written and resolve
when the file starts. Prints the size (the target is at most 3 MB) and what the file leaves out.

Options:
  --configs DIR    folder of saved configs to carry
  --guardrails DIR folder of named guardrails (default: guardrails/ beside the configs folder)
  --out DIR        where gateway.mjs and its map are written
  -h, --help       show this help

Exit status: 0 when built, 1 when a config is invalid or bundling failed, 2 on usage errors.`;

const ROOT = resolve(import.meta.dirname, '../..');
const OUT_FILE = 'gateway.mjs';
const SIZE_TARGET_BYTES = 3 * 1024 * 1024;

/** What the file does not carry, and when that matters. */
const LEFT_OUT = [
  'usearch (native semantic-cache index): only with GATEWAY_SEMANTIC_CACHE_EMBEDDINGS; install it beside the file to use one',
  'pg-native: never used (the pure-JavaScript PostgreSQL driver is inside)',
  'gateway compile, explain, diff, build, generate and contract-check: they need the package (they check and build configs and clients, not serve them)',
];
/** Imported only where LEFT_OUT says; the bundle names them but does not carry them. */
const EXTERNAL = ['usearch', 'pg-native'];

export async function runBuild(argv: string[]): Promise<number> {
  let values: { configs?: string; guardrails?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { configs: { type: 'string' }, guardrails: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
    if (values.help !== true && (values.configs === undefined || values.out === undefined)) throw new Error('--configs DIR and --out DIR are required');
  } catch (error) {
    process.stderr.write(`gateway build: ${(error as Error).message}\n\n${BUILD_USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${BUILD_USAGE}\n`);
    return 0;
  }
  const configsDir = resolve(values.configs!);
  const guardrailsDir = resolve(values.guardrails ?? join(dirname(configsDir), 'guardrails'));
  const out = resolve(values.out!);
  const say = (line: string): boolean => process.stderr.write(`${line}\n`);

  say(`checking ${relative(process.cwd(), configsDir) || '.'} …`);
  let folder: CheckedFolder;
  try {
    folder = await checkFolder(configsDir, guardrailsDir);
  } catch (error) {
    process.stderr.write(`gateway build: ${(error as Error).message}\n`);
    return 2;
  }
  if (folder.errors.length > 0) {
    for (const { file, error } of folder.errors) process.stderr.write(formatConfigError(file, error));
    say(`gateway build: ${folder.errors.length} error(s); nothing was built`);
    return 1;
  }

  const info: BuildInfo = { built_at: new Date().toISOString(), configs: [...folder.configs.keys()].map((name) => basename(name, '.json')), guardrails: [...folder.guardrails.keys()].map((name) => basename(name, '.json')), left_out: LEFT_OUT };
  const embedded: Record<string, string> = { [BUILD_INFO]: JSON.stringify(info) };
  for (const backend of ['sqlite', 'postgres']) {
    const dir = `runtime/store/migrations/${backend}/`;
    for (const file of repoFolder(dir)) embedded[dir + file] = repoFileText(dir + file);
  }
  embedded['runtime/telemetry/model-catalog.json'] = repoFileText('runtime/telemetry/model-catalog.json');
  for (const [name, text] of folder.configs) embedded[`${EMBEDDED_CONFIGS}/${name}`] = text;
  for (const [name, text] of folder.guardrails) embedded[`${EMBEDDED_GUARDRAILS}/${name}`] = text;

  try {
    say('bundling the request-log worker …');
    // A worker thread starts from its own module: bundled first, then carried as text.
    // It opens the SQLite file, so it carries the migrations; it needs no require() of its own.
    const migrations = Object.fromEntries(Object.entries(embedded).filter(([path]) => path.startsWith('runtime/store/migrations/')));
    const worker = await esbuild.build({ ...common(migrations), banner: {}, entryPoints: [join(ROOT, LOG_WRITER_WORKER)], write: false, sourcemap: false });
    embedded[LOG_WRITER_WORKER] = worker.outputFiles[0].text;
    say('bundling the semantic-index worker …');
    // It loads the native usearch itself, from beside the build (createRequire, not an import).
    const indexWorker = await esbuild.build({ ...common({}), banner: {}, entryPoints: [join(ROOT, SEMANTIC_INDEX_WORKER)], write: false, sourcemap: false });
    embedded[SEMANTIC_INDEX_WORKER] = indexWorker.outputFiles[0].text;
    say('bundling the gateway …');
    await mkdir(out, { recursive: true });
    await rm(join(out, OUT_FILE), { force: true });
    const result = await esbuild.build({ ...common(embedded), entryPoints: [join(ROOT, 'bin/gateway.js')], outfile: join(out, OUT_FILE), sourcemap: 'linked', metafile: true });
    for (const warning of result.warnings) say(`warning: ${warning.text}`);
  } catch (error) {
    process.stderr.write(`gateway build: bundling failed: ${(error as Error).message}\n`);
    return 1;
  }
  const size = (await stat(join(out, OUT_FILE))).size;
  const shown = relative(process.cwd(), join(out, OUT_FILE)) || OUT_FILE;
  process.stdout.write(`${shown}  ${(size / 1024 / 1024).toFixed(2)} MB${size > SIZE_TARGET_BYTES ? ' (over the 3 MB target)' : ''}, with ${shown}.map\n`);
  process.stdout.write(`carries ${info.configs.length} config(s)${info.guardrails.length > 0 ? ` and ${info.guardrails.length} guardrail(s)` : ''}: ${info.configs.join(', ')}\n`);
  process.stdout.write(`left out:\n${LEFT_OUT.map((line) => `  ${line}\n`).join('')}`);
  process.stdout.write(`run it: node ${shown} serve\n`);
  return 0;
}

interface CheckedFolder {
  configs: Map<string, string>;
  guardrails: Map<string, string>;
  errors: { file: string; error: ConfigError }[];
}

/** Every config and guardrail file, read once and checked as `gateway compile` checks them (references kept as written). */
async function checkFolder(configsDir: string, guardrailsDir: string): Promise<CheckedFolder> {
  let found: FolderFile[] | null;
  try {
    found = await jsonFilesIn(configsDir);
  } catch (error) {
    throw new Error(`cannot read --configs ${configsDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (found === null || found.length === 0) throw new Error(`${configsDir} holds no *.json config`);
  const guardrailTexts = (await jsonFilesIn(guardrailsDir)) ?? [];
  const guardrailFolder = checkGuardrailFiles(guardrailTexts);
  const errors = guardrailFolder.errors.map((error) => ({ file: join(guardrailsDir, `${error.configId ?? ''}.json`), error }));
  const valid = new Set(guardrailFolder.files.map((file) => file.path));
  const guardrails = new Map(guardrailTexts.filter((file) => valid.has(file.path)).map((file) => [file.name, file.text]));
  const lookup = fileGuardrails(guardrailFolder.files, guardrailsDir);
  const configs = new Map<string, string>();
  for (const file of found) {
    const checked = checkConfigSource(file.text, basename(file.name, '.json'), { guardrails: lookup });
    if (checked.ok) configs.set(file.name, file.text);
    else errors.push(...checked.errors.map((error) => ({ file: file.path, error })));
  }
  return { configs, guardrails, errors };
}

/** Settings every bundle shares: Node 24 ESM, the embedded files, and the two rewrites below. */
function common(embedded: Record<string, string>): esbuild.BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // A package's ES module build where it has one: its imports can be shaken, where a CommonJS
    // build's require() of a package brings all of it (the OpenTelemetry SDK's CommonJS builds
    // brought every semantic-conventions constant, ~90 KB; the whole file is ~240 KB smaller).
    mainFields: ['module', 'main'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    external: EXTERNAL,
    define: { __GATEWAY_EMBEDDED_FILES__: JSON.stringify(embedded) },
    // CommonJS packages inside an ES module still call require() for Node's own modules.
    banner: { js: "import { createRequire as __gatewayCreateRequire } from 'node:module'; const require = __gatewayCreateRequire(import.meta.url);" },
    plugins: [bundledRequires, leftOutCommands],
  };
}

/**
 * The generated validators, the undici pool and the lazily loaded Ajv load CommonJS files through
 * `createRequire`, which a bundler cannot follow; as plain `require` calls they are bundled like any
 * other import (and a `require` in a function still runs only when the function does).
 */
const bundledRequires: esbuild.Plugin = {
  name: 'bundled-requires',
  setup(build) {
    build.onLoad({ filter: /(generated[\\/][^\\/]+\.js|undici-pool\.ts|check-schema-ajv\.ts)$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const rewritten = text.replace(/^const require = createRequire\(import\.meta\.url\);$/m, '').replace(/createRequire\(import\.meta\.url\)\(/g, 'require(');
      return { contents: rewritten, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/** The commands that check and build configs stay with the package: in the file they say so. */
const leftOutCommands: esbuild.Plugin = {
  name: 'left-out-commands',
  setup(build) {
    build.onResolve({ filter: /compiler\/cli\/[a-z-]+\.ts$/ }, (args) => ({ path: args.path, namespace: 'left-out' }));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({
      loader: 'js',
      contents: `const leftOut = () => { process.stderr.write('gateway: this command is not in the one-file build: run it from the package (npx gateway …)\\n'); return 2; };
export { leftOut as runCompile, leftOut as runExplain, leftOut as runDiff, leftOut as runBuild, leftOut as runGenerate, leftOut as runContractCheck };`,
    }));
  },
};
