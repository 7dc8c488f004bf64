#!/usr/bin/env node
// The `gateway` command: a thin dispatcher. Each subcommand lives in its own module and returns its
// exit code; this file only picks the module, so `gateway --help` loads nothing else.
import module from 'node:module';
import { isMainThread, workerData } from 'node:worker_threads';
import { describeSkippedTuning, pendingTuning, reexec, reexecBlocker } from './memory-tuning.js';
import { nodeVersionProblem } from './node-version.js';

// First of all: an older Node gets one clear line, not a TypeError from an API it lacks.
const tooOld = nodeVersionProblem(process.version);
if (tooOld !== null) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(1);
}

const USAGE = `Usage: gateway <command> [options]

Commands:
  compile   check saved configs (and the guardrails beside them) before deploy
  explain   a config's routing tree in words
  diff      what a change to configs does to routing (files, folders, git:REF:path)
  simulate  a dry run of one request through a config, with scripted provider answers
  build     one file (dist/gateway.mjs) that serves a configs folder with no node_modules
  generate  write the typed TypeScript client: gateway generate client --out DIR
  contract-check  check a running gateway's answers against the API schemas
  serve     run the gateway HTTP server
  keys      create, list and revoke gateway API keys
  logs      print and follow the request log
  mock-provider  a local vendor-shaped provider: a routed request with no account or network
  demo      the quick start in one command: the mock provider and the gateway serving examples/configs
  help      show this help, or a command's help: gateway help <command>

Run \`gateway <command> --help\` for a command's options.`;

const EXIT_USAGE = 2;

// Node's compile cache (NODE_COMPILE_CACHE, default: node-compile-cache in the OS temp folder) keeps
// compiled code and the output of type stripping, per Node version and V8 flags: a start that finds
// every module there never loads Node's TypeScript stripper (~25 MB of a serving process) and starts
// about twice as fast. The first start of each version of the code fills it.
module.enableCompileCache();

/**
 * Imports a command's module and writes what was compiled to the cache at once (a killed process
 * never writes it). Each import is a literal, so the one-file build (gateway build) can follow it.
 */
async function load(importModule) {
  const loaded = await importModule();
  module.flushCompileCache();
  return loaded;
}

/** Applies serve's memory tuning (bin/memory-tuning.js) by re-executing, when it is missing and can be. */
function tuneServe() {
  const tuning = pendingTuning(process.execArgv, process.env);
  if (tuning === null) return;
  let blocker = reexecBlocker();
  if (blocker === null) {
    try {
      reexec(tuning);
    } catch (err) {
      blocker = err.message;
    }
  }
  process.stderr.write(describeSkippedTuning(tuning, blocker));
}

const COMMANDS = {
  compile: async (argv) => (await load(() => import('../compiler/cli/compile.ts'))).runCompile(argv),
  explain: async (argv) => (await load(() => import('../compiler/cli/explain.ts'))).runExplain(argv),
  diff: async (argv) => (await load(() => import('../compiler/cli/diff.ts'))).runDiff(argv),
  build: async (argv) => (await load(() => import('../compiler/cli/build.ts'))).runBuild(argv),
  generate: async (argv) => (await load(() => import('../compiler/cli/generate.ts'))).runGenerate(argv),
  'contract-check': async (argv) => (await load(() => import('../compiler/cli/contract-check.ts'))).runContractCheck(argv),
  simulate: async (argv) => (await load(() => import('../runtime/cli/simulate.ts'))).runSimulate(argv),
  serve: async (argv) => {
    tuneServe();
    return (await load(() => import('../runtime/cli/serve.ts'))).runServe(argv);
  },
  keys: async (argv) => (await load(() => import('../runtime/cli/keys.ts'))).runKeys(argv),
  logs: async (argv) => (await load(() => import('../runtime/cli/logs.ts'))).runLogs(argv),
  'mock-provider': async (argv) => (await load(() => import('../runtime/cli/mock-provider.ts'))).runMockProvider(argv),
  demo: async (argv) => {
    tuneServe();
    return (await load(() => import('../runtime/cli/demo.ts'))).runDemo(argv);
  },
};

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'help') {
    // `gateway help --help` asks for this help too.
    if (rest.length === 0 || (rest.length === 1 && (rest[0] === '--help' || rest[0] === '-h'))) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (rest.length === 1 && Object.hasOwn(COMMANDS, rest[0])) return COMMANDS[rest[0]](['--help']);
    process.stderr.write(`gateway: unknown command ${JSON.stringify(rest.join(' '))}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (!Object.hasOwn(COMMANDS, command)) {
    process.stderr.write(`gateway: unknown command ${JSON.stringify(command)}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  return COMMANDS[command](rest);
}

/**
 * A thread the gateway starts from this same file: in the one-file build the code it needs (Ajv, the
 * linear-time regex engine) is already in the file, and a second copy carried for the thread alone
 * would add ~0.3 MB. `gatewayThread` (runtime/pipeline/guardrails/checks/json-schema-thread.ts) says which.
 */
const thread = isMainThread ? undefined : workerData?.gatewayThread;

if (thread === 'json-schema') await load(() => import('../runtime/pipeline/guardrails/checks/json-schema-worker.ts'));
else main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`gateway: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
