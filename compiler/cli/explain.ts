// `gateway explain CONFIG`: a config file's routing tree in words (or as JSON), read off the plan the
// router is emitted from. An invalid config prints its errors, located, and exits 1.
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileGuardrails, readGuardrailFolder } from '../config/guardrail-files.ts';
import { explainPlan, explainText } from '../config/explain.ts';
import { checkConfigSource } from '../config/index.ts';

export const EXPLAIN_USAGE = `Usage: gateway explain CONFIG [--guardrails DIR] [--json]

Prints the routing tree of the config file CONFIG in words: which target answers when, loadbalance
weights as shares, fallback order and the statuses that move on, conditions, retries, timeouts,
circuit breakers, caches, hooks and guardrails. Credentials appear redacted.

Options:
  --guardrails DIR folder of named guardrails (default: guardrails/ beside the config's folder)
  --json           print the tree as one JSON document
  -h, --help       show this help

Exit status: 0 when the config is valid, 1 when it is not (its errors are printed), 2 on usage errors.`;

export async function runExplain(argv: string[]): Promise<number> {
  let values: { guardrails?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { guardrails: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`gateway explain: ${(error as Error).message}\n\n${EXPLAIN_USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${EXPLAIN_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`gateway explain: name one config file\n\n${EXPLAIN_USAGE}\n`);
    return 2;
  }
  const path = resolve(positionals[0]);
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    process.stderr.write(`gateway explain: cannot read ${positionals[0]}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return 2;
  }
  const guardrailsDir = resolve(values.guardrails ?? join(dirname(dirname(path)), 'guardrails'));
  const folder = await readGuardrailFolder(guardrailsDir);
  const result = checkConfigSource(source, basename(path, '.json'), { guardrails: fileGuardrails(folder.files, guardrailsDir) });
  if (!result.ok) {
    for (const error of result.errors) process.stderr.write(`${positionals[0]}:${error.line}:${error.column}  ${error.code}  ${error.pointer || '/'}\n  ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ''}\n`);
    return 1;
  }
  process.stdout.write(values.json === true ? `${JSON.stringify({ config: result.plan.configId, tree: explainPlan(result.plan) }, null, 2)}\n` : explainText(result.plan));
  return 0;
}
