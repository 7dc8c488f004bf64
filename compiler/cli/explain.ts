// `gateway explain CONFIG`: a config file's routing tree in words (or as JSON), read off the plan the
// router is emitted from. An invalid config prints its errors, located, and exits 1.
import { parseArgs } from 'node:util';
import { checkConfigFile, formatConfigError, UnreadableConfigFile } from '../config/config-file.ts';
import { explainPlan, explainText } from '../config/explain.ts';

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
  let result;
  try {
    result = await checkConfigFile(positionals[0], values.guardrails);
  } catch (error) {
    if (!(error instanceof UnreadableConfigFile)) throw error;
    process.stderr.write(`gateway explain: ${error.message}\n`);
    return 2;
  }
  if (!result.ok) {
    for (const error of result.errors) process.stderr.write(formatConfigError(positionals[0], error));
    return 1;
  }
  process.stdout.write(values.json === true ? `${JSON.stringify({ config: result.plan.configId, tree: explainPlan(result.plan) }, null, 2)}\n` : explainText(result.plan));
  return 0;
}
