// `npm run fuzz -- --runs N`: the request fuzzer (test/fuzz/) for as many cases as asked, through
// vitest (so its harness, mocks and seed printing are the same as in `npm test`).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run fuzz -- [--runs N] [--seed S]

Sends N generated hostile requests (methods, paths, gateway headers, inline configs, bodies) to a
real gateway in front of a mock provider and checks that none gets a 500, every error body is well
formed, and the gateway keeps answering. A failure prints the seed and the request.

Options:
  --runs N     cases of each fuzzer (default 10000; npm test runs 3000 requests and 80 providers)
  --seed S     fast-check seed, to replay a failure
  -h, --help   show this help`;

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10000' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help === true) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`fuzz: --runs must be a positive whole number\n\n${USAGE}\n`);
  process.exit(2);
}
const env = { ...process.env, FUZZ_RUNS: String(runs), ...(values.seed === undefined ? {} : { FUZZ_SEED: values.seed }) };
process.stderr.write(`fuzz: ${runs} cases\n`);
const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/fuzz', '--testTimeout', String(Math.max(120_000, runs * 250))], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
