// `gateway diff OLD NEW`: what a change to configs does to routing. OLD and NEW are config files,
// folders of them, or `git:REF:path` (the file or folder as committed at REF). Exit 0 when routing is
// the same, 1 when it differs, 2 on usage errors or an invalid config.
import { execFileSync } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { diffPlans, type NodeChange } from '../config/diff.ts';
import { fileGuardrails, readGuardrailFolder } from '../config/guardrail-files.ts';
import { checkConfigSource, type ConfigError, type GuardrailLookup, type RoutePlan } from '../config/index.ts';

export const DIFF_USAGE = `Usage: gateway diff OLD NEW [--guardrails DIR] [--json]

Compares the routing of two versions of configs: OLD and NEW are config files, folders of them, or
git:REF:path (that file or folder as committed at REF, e.g. git:main:configs). Prints, per config,
the targets added or removed and, for the others, what changed: provider, host, key (redacted or as
a \${NAME} reference, never a value), strategy, weight shares, fallback order, conditions, retries,
timeouts, breakers, caches, hooks and guardrails.

Options:
  --guardrails DIR folder of named guardrails (default: guardrails/ beside NEW's folder)
  --json           print {"same", "configs": [{"id", "change", "nodes": [{"path", "change", "removed", "added"}]}]}
  -h, --help       show this help

Exit status: 0 when routing is the same, 1 when it differs, 2 on usage errors or an invalid config.`;

interface ConfigDiff {
  id: string;
  change: 'added' | 'removed' | 'changed';
  nodes: NodeChange[];
}

class DiffInputError extends Error {}

export async function runDiff(argv: string[]): Promise<number> {
  let values: { guardrails?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { guardrails: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`gateway diff: ${(error as Error).message}\n\n${DIFF_USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${DIFF_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 2) {
    process.stderr.write(`gateway diff: name OLD and NEW\n\n${DIFF_USAGE}\n`);
    return 2;
  }
  const [oldSpec, newSpec] = positionals;
  let diffs: ConfigDiff[];
  try {
    const guardrailsDir = resolve(values.guardrails ?? join(dirname(resolve(localPath(newSpec))), 'guardrails'));
    const guardrails = fileGuardrails((await readGuardrailFolder(guardrailsDir)).files, guardrailsDir);
    let before = await plans(oldSpec, guardrails);
    const after = await plans(newSpec, guardrails);
    // Two files are two versions of one config, whatever their names.
    if ((await isFile(oldSpec)) && (await isFile(newSpec)) && before.size === 1 && after.size === 1) before = new Map([[[...after.keys()][0], [...before.values()][0]]]);
    diffs = diffConfigs(before, after);
  } catch (error) {
    if (!(error instanceof DiffInputError)) throw error;
    process.stderr.write(`gateway diff: ${error.message}\n`);
    return 2;
  }
  if (values.json === true) process.stdout.write(`${JSON.stringify({ same: diffs.length === 0, configs: diffs }, null, 2)}\n`);
  else process.stdout.write(diffs.length === 0 ? 'routing is the same\n' : describe(diffs));
  return diffs.length === 0 ? 0 : 1;
}

function diffConfigs(before: Map<string, RoutePlan>, after: Map<string, RoutePlan>): ConfigDiff[] {
  const diffs: ConfigDiff[] = [];
  for (const id of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(id);
    const now = after.get(id);
    if (old === undefined) diffs.push({ id, change: 'added', nodes: [] });
    else if (now === undefined) diffs.push({ id, change: 'removed', nodes: [] });
    else {
      const nodes = diffPlans(old, now);
      if (nodes.length > 0) diffs.push({ id, change: 'changed', nodes });
    }
  }
  return diffs;
}

function describe(diffs: readonly ConfigDiff[]): string {
  const out: string[] = [];
  for (const diff of diffs) {
    if (diff.change !== 'changed') {
      out.push(`config ${diff.id}: ${diff.change}`);
      continue;
    }
    out.push(`config ${diff.id}`);
    for (const node of diff.nodes) {
      out.push(`  ${node.change === 'added' ? '+' : node.change === 'removed' ? '-' : '~'} ${node.path}${node.change === 'changed' ? '' : ` (${node.change})`}`);
      for (const line of node.removed) out.push(`      - ${line}`);
      for (const line of node.added) out.push(`      + ${line}`);
    }
  }
  return `${out.join('\n')}\n`;
}

async function isFile(spec: string): Promise<boolean> {
  const git = /^git:([^:]+):(.+)$/.exec(spec);
  if (git !== null) return git[2].endsWith('.json');
  return (await stat(spec).catch(() => null))?.isFile() === true;
}

/** The path part of a spec (git:REF:path → path). */
function localPath(spec: string): string {
  const git = /^git:([^:]+):(.+)$/.exec(spec);
  return git === null ? spec : git[2];
}

/** Every config of a spec, compiled (references kept as written: no secret is needed to compare). */
async function plans(spec: string, guardrails: GuardrailLookup): Promise<Map<string, RoutePlan>> {
  const sources = await sourcesOf(spec);
  const plans = new Map<string, RoutePlan>();
  const errors: string[] = [];
  for (const [id, { source, where }] of sources) {
    const result = checkConfigSource(source, id, { guardrails });
    if (result.ok) plans.set(id, result.plan);
    else errors.push(...result.errors.map((e: ConfigError) => `${where}:${e.line}:${e.column}  ${e.code}  ${e.pointer || '/'}  ${e.message}`));
  }
  if (errors.length > 0) throw new DiffInputError(`invalid config(s):\n  ${errors.join('\n  ')}`);
  return plans;
}

async function sourcesOf(spec: string): Promise<Map<string, { source: string; where: string }>> {
  const git = /^git:([^:]+):(.+)$/.exec(spec);
  if (git !== null) return gitSources(git[1], git[2].replace(/\/+$/, ''));
  let info;
  try {
    info = await stat(spec);
  } catch {
    throw new DiffInputError(`cannot read ${spec}`);
  }
  if (!info.isDirectory()) return new Map([[basename(spec, '.json'), { source: await readFile(spec, 'utf8'), where: spec }]]);
  const files = (await readdir(spec)).filter((f) => f.endsWith('.json')).sort();
  const sources = new Map<string, { source: string; where: string }>();
  for (const file of files) sources.set(basename(file, '.json'), { source: await readFile(join(spec, file), 'utf8'), where: join(spec, file) });
  return sources;
}

function gitSources(ref: string, path: string): Map<string, { source: string; where: string }> {
  const git = (...args: string[]): string => {
    try {
      return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      throw new DiffInputError(`git ${args.join(' ')}: ${((error as { stderr?: string }).stderr ?? (error as Error).message).trim()}`);
    }
  };
  const type = git('cat-file', '-t', `${ref}:${path}`).trim();
  if (type === 'blob') return new Map([[basename(path, '.json'), { source: git('show', `${ref}:${path}`), where: `${ref}:${path}` }]]);
  const names = git('ls-tree', '--name-only', `${ref}:${path}`).split('\n').filter((name) => name.endsWith('.json')).sort();
  return new Map(names.map((name) => [basename(name, '.json'), { source: git('show', `${ref}:${path}/${name}`), where: `${ref}:${path}/${name}` }]));
}
