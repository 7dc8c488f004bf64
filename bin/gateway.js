#!/usr/bin/env node
// The `gateway` command: a thin dispatcher. Each subcommand lives in its own module and returns its
// exit code; this file only picks the module, so `gateway --help` loads nothing else.

const USAGE = `Usage: gateway <command> [options]

Commands:
  compile   check saved configs and regenerate generated/ from schema/
  serve     run the gateway HTTP server
  keys      create, list and revoke gateway API keys
  help      show this help, or a command's help: gateway help <command>

Run \`gateway <command> --help\` for a command's options.`;

const EXIT_USAGE = 2;

// node:sqlite is still flagged experimental on Node 24; its warning would land in every command's output.
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : warning?.message;
  if (typeof text === 'string' && text.startsWith('SQLite is an experimental feature')) return;
  return emitWarning.call(process, warning, ...rest);
};

const COMMANDS = {
  compile: async (argv) => (await import('../compiler/cli/compile.ts')).runCompile(argv),
  serve: async (argv) => (await import('../runtime/cli/serve.ts')).runServe(argv),
  keys: async (argv) => (await import('../runtime/cli/keys.ts')).runKeys(argv),
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
    if (rest.length === 0) {
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`gateway: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
