// `gateway compile`: in process through `runCompile`, and as a real process through bin/gateway.js.
// `gateway compile` never writes inside the package (generated/ is `npm run generate`'s).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCompile } from '../../compiler/cli/compile.ts';
import { checkConfigSource } from '../../compiler/config/index.ts';
import { redactCredentials } from '../../compiler/config/secrets.ts';
import { capturedOutput } from '../support/captured-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIGS = 'examples/configs';
const BROKEN = 'examples/broken';
const exampleIds = readdirSync(join(ROOT, CONFIGS)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let temp: string;
beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'gateway-compile-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(temp, { recursive: true, force: true });
});

/** Runs `runCompile` with stdout and stderr captured, from the repository root (reported paths are relative to it). */
async function compile(...argv: string[]): Promise<Run> {
  const { result: code, stdout, stderr } = await capturedOutput(() => runCompile(argv), ROOT);
  return { code, stdout, stderr };
}

describe('runCompile', () => {
  it('exits 0 on examples/configs and lists each config as ok', async () => {
    const run = await compile('--configs', CONFIGS);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const okLines = run.stdout.split('\n').filter((l) => l.startsWith('ok '));
    expect(okLines.map((l) => l.replace(/^ok\s+/, '')).sort()).toEqual(exampleIds);
    expect(run.stdout).toContain(`${exampleIds.length} config(s) valid`);
  });

  it('resolves guardrail names against the guardrails folder beside the configs, and refuses an unknown one with a hint', async () => {
    const run = await compile('--configs', CONFIGS);
    expect(run.stdout).toContain('ok    guardrails');
    expect(run.stderr).toContain('checked 1 guardrail file(s) in examples/guardrails');
    const dir = await mkdtemp(join(tmpdir(), 'gateway-compile-guardrails-'));
    try {
      await mkdir(join(dir, 'configs'));
      await mkdir(join(dir, 'guardrails'));
      await writeFile(join(dir, 'guardrails', 'no-pii.json'), JSON.stringify({ checks: [{ id: 'default.piiRedact', parameters: {} }] }));
      await writeFile(join(dir, 'guardrails', 'broken.json'), '{\n  "checks": [{ "id": "default.wordcount", "parameters": {} }]\n}');
      await writeFile(join(dir, 'configs', 'named.json'), '{\n  "virtual_key": "v",\n  "input_guardrails": ["no-pii", "no-pi"]\n}');
      const failed = await compile('--configs', join(dir, 'configs'));
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('error guardrails/broken');
      expect(failed.stdout).toMatch(/broken\.json:2:\d+ {2}CFG_UNKNOWN_CHECK/);
      expect(failed.stdout).toMatch(/named\.json:3:\d+ {2}CFG_UNKNOWN_GUARDRAIL {2}\/input_guardrails\/1/);
      expect(failed.stdout).toContain('hint: did you mean "no-pii"?');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('warns, located, about a credential written in a file and a ${NAME} not set here; --strict fails on warnings', async () => {
    const configs = join(temp, 'configs');
    mkdirSync(configs);
    await writeFile(join(configs, 'keys.json'), '{\n  "strategy": { "mode": "fallback" },\n  "targets": [\n    { "provider": "vendor", "api_key": "sk-live-abcdefghijklmnop" },\n    { "provider": "vendor", "api_key": "${GATEWAY_TEST_UNSET_VARIABLE}" }\n  ]\n}');
    const run = await compile('--configs', configs);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/warning .*keys\.json:4:40 {2}CFG_LITERAL_CREDENTIAL {2}\/targets\/0\/api_key/);
    expect(run.stdout).toMatch(/warning .*keys\.json:5:40 {2}CFG_SECRET_NOT_SET {2}\/targets\/1\/api_key/);
    expect((await compile('--configs', configs, '--strict')).code).toBe(1);
  });

  it('checks a file that starts with a byte-order mark as the JSON it is, its warnings at the same places (it crashed with V8\'s message quoting the file)', async () => {
    const configs = join(temp, 'configs');
    mkdirSync(configs);
    await writeFile(join(configs, 'keys.json'), '\ufeff{\n  "provider": "vendor",\n  "api_key": "sk-live-abcdefghijklmnop"\n}');
    const run = await compile('--configs', configs);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/warning .*keys\.json:3:14 {2}CFG_LITERAL_CREDENTIAL {2}\/api_key/);
    expect(run.stdout + run.stderr).not.toContain('abcdefghijklmnop');
  });

  it('warns, located, about a circuit breaker no fallback or loadbalance acts on, and a field no strategy reads; --strict fails', async () => {
    const configs = join(temp, 'breakers');
    mkdirSync(configs);
    await writeFile(join(configs, 'lone.json'), '{\n  "provider": "vendor", "api_key": "${GATEWAY_TEST_KEY}",\n  "cb_config": { "failure_threshold": 3, "cooldown_interval": 30000 }\n}');
    process.env.GATEWAY_TEST_KEY = 'set';
    try {
      const run = await compile('--configs', configs);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/warning .*lone\.json:3:16 {2}CFG_BREAKER_NEVER_SKIPS {2}\/cb_config/);
      await writeFile(join(configs, 'lone.json'), '{\n  "provider": "vendor", "api_key": "${GATEWAY_TEST_KEY}",\n  "weight": 2\n}');
      expect((await compile('--configs', configs)).stdout).toMatch(/warning .*lone\.json:3:13 {2}CFG_FIELD_WITHOUT_EFFECT {2}\/weight\n {4}Only a loadbalance strategy reads/);
      expect((await compile('--configs', configs, '--strict')).code).toBe(1);
    } finally {
      delete process.env.GATEWAY_TEST_KEY;
    }
  });

  it('warns, located, about a target a url.pathname branch sends requests its provider does not offer; --strict fails', async () => {
    const configs = join(temp, 'configs');
    mkdirSync(configs);
    await writeFile(join(configs, 'split.json'), [
      '{',
      '  "strategy": { "mode": "conditional", "conditions": [{ "query": { "url.pathname": "/v1/embeddings" }, "then": "emb" }], "default": "chat" },',
      '  "targets": [',
      '    { "name": "emb", "provider": "anthropic", "api_key": "${GATEWAY_TEST_KEY}" },',
      '    { "name": "chat", "provider": "anthropic", "api_key": "${GATEWAY_TEST_KEY}" }',
      '  ]',
      '}',
    ].join('\n'));
    process.env.GATEWAY_TEST_KEY = 'set';
    try {
      const run = await compile('--configs', configs);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/warning .*split\.json:4:34 {2}CFG_PROVIDER_LACKS_ENDPOINT {2}\/targets\/0\/provider/);
      expect(run.stdout).toContain('reached for embeddings requests');
      // The default branch gets chat, models and the rest by exclusion; anthropic offers some of them: no warning.
      expect(run.stdout).not.toContain('/targets/1/provider');
      expect((await compile('--configs', configs, '--strict')).code).toBe(1);
    } finally {
      delete process.env.GATEWAY_TEST_KEY;
    }
  });

  it('warns, located, about a semantic cache when the server setting it needs is not set; exit 0', async () => {
    const saved = process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS;
    delete process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS;
    try {
      const run = await compile('--configs', 'examples/semantic');
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('ok    semantic-cache');
      expect(run.stdout).toContain('  warning examples/semantic/semantic-cache.json:4:22  CFG_SEMANTIC_CACHE_NEEDS_SERVER  /cache/mode');
      expect(run.stdout).toContain('GATEWAY_SEMANTIC_CACHE_EMBEDDINGS');
      const json = await compile('--configs', 'examples/semantic', '--json');
      expect(JSON.parse(json.stdout).configs[0].warnings).toContainEqual(expect.objectContaining({ code: 'CFG_SEMANTIC_CACHE_NEEDS_SERVER', pointer: '/cache/mode', line: 4, column: 22 }));
      process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = 'embed-config';
      expect((await compile('--configs', 'examples/semantic')).stdout).not.toContain('CFG_SEMANTIC_CACHE_NEEDS_SERVER');
    } finally {
      if (saved === undefined) delete process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS;
      else process.env.GATEWAY_SEMANTIC_CACHE_EMBEDDINGS = saved;
    }
  });

  it('exits 1 on examples/broken with file:line:column  CODE  pointer lines and hints', async () => {
    const run = await compile('--configs', BROKEN);
    expect(run.code).toBe(1);
    const located = run.stdout.split('\n').filter((l) => /^ {2}\S+\.json:\d+:\d+ {2}CFG_[A-Z_]+ {2}\S+$/.test(l));
    expect(located).toContain('  examples/broken/misspelt-keys.json:2:3  CFG_UNKNOWN_KEY  /stratgy');
    expect(located).toContain('  examples/broken/misspelt-keys.json:9:26  CFG_INVALID_VALUE  /targets/1/cache/mode');
    expect(located).toContain('  examples/broken/routing-mistakes.json:6:48  CFG_INVALID_REGEX  /strategy/conditions/1/query/params.model/$regex');
    expect(located).toContain('  examples/broken/routing-mistakes.json:23:30  CFG_TOO_MANY_RETRIES  /targets/1/retry/attempts');
    expect(located).toContain('  examples/broken/trailing-comma.json:4:1  CFG_INVALID_JSON  /');
    expect(run.stdout).toContain('    hint: did you mean "strategy"?');
    expect(run.stdout).toContain('    hint: did you mean "semantic"?');
    expect(run.stdout).toContain('    hint: did you mean "on_status_codes"?');
    // Every error of every broken file is printed, located.
    const total = readdirSync(join(ROOT, BROKEN)).reduce((n, f) => {
      const result = checkConfigSource(readFileSync(join(ROOT, BROKEN, f), 'utf8'), f);
      return n + (result.ok ? 0 : result.errors.length);
    }, 0);
    expect(located).toHaveLength(total);
  });

  it('sorts the errors of one file by line and column', async () => {
    const run = await compile('--configs', BROKEN);
    const positions = run.stdout.split('\n').filter((l) => l.includes('misspelt-keys.json:')).map((l) => /:(\d+):(\d+) /.exec(l)!.slice(1).map(Number));
    const sorted = [...positions].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(positions).toEqual(sorted);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--configs', 'examples/does-not-exist'], /cannot read --configs examples\/does-not-exist: ENOENT/],
    [['--configs'], /argument missing/],
    [['positional'], /positional/],
    [['--out', 'build'], /--configs DIR is required/],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const run = await compile(...argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('--help prints the usage and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await compile(flag);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: gateway compile/);
    }
  });

  it('--json prints exactly one JSON document with every config, errors located', async () => {
    const run = await compile('--configs', BROKEN, '--json');
    expect(run.code).toBe(1);
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trimEnd().includes('\n')).toBe(false);
    const doc = JSON.parse(run.stdout) as { configs: Array<{ id: string; ok: boolean; errors: Array<Record<string, unknown>> }> };
    expect(Object.keys(doc)).toEqual(['configs']);
    expect(doc.configs.map((c) => c.id)).toEqual(['misspelt-keys', 'routing-mistakes', 'trailing-comma']);
    for (const config of doc.configs) {
      expect(Object.keys(config).sort()).toEqual(['errors', 'id', 'ok', 'warnings']);
      expect(config.ok).toBe(false);
      expect(config.errors.length).toBeGreaterThan(0);
      for (const error of config.errors) {
        expect(error).toMatchObject({ code: expect.stringMatching(/^CFG_/), pointer: expect.any(String), line: expect.any(Number), column: expect.any(Number), message: expect.any(String) });
      }
    }
    expect(doc.configs[0].errors).toContainEqual(expect.objectContaining({ code: 'CFG_UNKNOWN_KEY', pointer: '/stratgy', line: 2, column: 3, hint: 'did you mean "strategy"?' }));
  });

  it('--json on valid configs: ok and no errors', async () => {
    const run = await compile('--configs', CONFIGS, '--json');
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { configs: Array<{ id: string; ok: boolean; errors: unknown[] }> };
    expect(doc.configs.map((c) => [c.id, c.ok, c.errors.length])).toEqual(exampleIds.map((id) => [id, true, 0]));
  });

  it('--out writes <id>.plan.json and <id>.router.js for each valid config only', async () => {
    const configs = join(temp, 'configs');
    const out = join(temp, 'out');
    mkdirSync(configs);
    copyFileSync(join(ROOT, CONFIGS, 'conditional-by-tier.json'), join(configs, 'conditional-by-tier.json'));
    copyFileSync(join(ROOT, CONFIGS, 'fallback-of-loadbalance.json'), join(configs, 'fallback-of-loadbalance.json'));
    copyFileSync(join(ROOT, BROKEN, 'routing-mistakes.json'), join(configs, 'routing-mistakes.json'));
    const run = await compile('--configs', configs, '--out', out);
    expect(run.code).toBe(1);
    expect(readdirSync(out).sort()).toEqual([
      'conditional-by-tier.plan.json', 'conditional-by-tier.router.js',
      'fallback-of-loadbalance.plan.json', 'fallback-of-loadbalance.router.js',
    ]);
    for (const id of ['conditional-by-tier', 'fallback-of-loadbalance']) {
      const planned = JSON.parse(readFileSync(join(out, `${id}.plan.json`), 'utf8'));
      const expected = checkConfigSource(readFileSync(join(configs, `${id}.json`), 'utf8'), id);
      if (!expected.ok) throw new Error(`${id} should be valid`);
      // The same plan, with the credentials written in the file redacted.
      expect(planned).toEqual(JSON.parse(JSON.stringify(redactCredentials(expected.plan, new Set(['apiKey'])))));
      expect(readFileSync(join(out, `${id}.plan.json`), 'utf8') + readFileSync(join(out, `${id}.router.js`), 'utf8')).not.toMatch(/sk-(example|free|pro)-[a-z0-9-]{6,}/);
      const router = readFileSync(join(out, `${id}.router.js`), 'utf8');
      expect(router.split('\n')[0]).toMatch(/^\/\/ generated by gateway compile from .*\.json; do not edit$/);
      const mod = (await import(pathToFileURL(join(out, `${id}.router.js`)).href)) as { default: unknown };
      expect(typeof mod.default).toBe('function');
    }
  });

  it('--out creates the folder', async () => {
    const configs = join(temp, 'one');
    mkdirSync(configs);
    writeFileSync(join(configs, 'only.json'), JSON.stringify({ provider: 'vendor', api_key: '${VENDOR_KEY}' }));
    const out = join(temp, 'nested', 'out');
    const run = await compile('--configs', configs, '--out', out, '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).configs.map((c: { id: string }) => c.id)).toEqual(['only']);
    expect(existsSync(join(out, 'only.plan.json'))).toBe(true);
  });

  it('exits 2 on a folder without any .json file, saying what it holds: a check of nothing must not pass', async () => {
    const empty = join(temp, 'empty');
    mkdirSync(empty);
    const none = await compile('--configs', empty);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`gateway compile: no config files in --configs ${empty} (configs are .json files; it is empty)\n`);
    const yaml = join(temp, 'yaml');
    mkdirSync(yaml);
    writeFileSync(join(yaml, 'prod.yaml'), 'provider: vendor\n');
    writeFileSync(join(yaml, '.gitkeep'), '');
    const other = await compile('--configs', yaml, '--json');
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toBe(`gateway compile: no config files in --configs ${yaml} (configs are .json files; it holds prod.yaml)\n`);
  });
});

// The real command, as CI runs it. Node 24 is the project's pinned node (node_modules/.bin/node).
const NODE = existsSync(join(ROOT, 'node_modules/.bin/node')) ? join(ROOT, 'node_modules/.bin/node') : process.execPath;
function gateway(...argv: string[]): Run {
  const result = spawnSync(NODE, ['bin/gateway.js', 'compile', ...argv], { cwd: ROOT, encoding: 'utf8', timeout: 30000 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

describe('node bin/gateway.js compile', () => {
  it('exits 0 on examples/configs', () => {
    const run = gateway('--configs', CONFIGS);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${exampleIds.length} config(s) valid`);
  });

  it('exits 1 on examples/broken, and --json keeps stdout to one document', () => {
    const run = gateway('--configs', BROKEN, '--json');
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]).configs).toHaveLength(3);
  });

  it('exits 2 on an unknown flag', () => {
    const run = gateway('--configz', CONFIGS);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: gateway compile');
  });
});
