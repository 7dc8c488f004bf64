// docs/observability.md's "Log events" table lists every event the gateway logs, at the level it logs
// it, and nothing else: the events are read from the source (every `.info|warn|error('event'` call,
// and the two events of every `new Outage(logger, 'failed', 'recovered', level)`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function loggedEvents(): Map<string, Set<string>> {
  const files = execFileSync('git', ['ls-files', 'runtime', 'compiler', 'bin'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => /\.(ts|js)$/.test(f));
  const events = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(resolve(ROOT, file), 'utf8');
    const add = (event: string, level: string): void => {
      if (!events.has(event)) events.set(event, new Set());
      events.get(event)!.add(level);
    };
    for (const match of text.matchAll(/\.(info|warn|error)\(\s*'([a-z_]+)'/g)) add(match[2], match[1]);
    // An Outage logs its failure at its level (warn unless given) and its recovery at info.
    for (const match of text.matchAll(/new Outage\([^,]+,\s*'([a-z_]+)',\s*'([a-z_]+)'(?:,\s*'(warn|error)')?\)/g)) {
      add(match[1], match[3] ?? 'warn');
      add(match[2], 'info');
    }
  }
  return events;
}

function documentedEvents(): Map<string, string> {
  const doc = readFileSync(resolve(ROOT, 'docs/observability.md'), 'utf8');
  const start = doc.indexOf('\n## Log events\n');
  expect(start, 'docs/observability.md has a "## Log events" section').toBeGreaterThan(0);
  const next = doc.indexOf('\n## ', start + 1);
  const rows = doc.slice(start, next < 0 ? undefined : next).split('\n').filter((line) => /^\| `[a-z_]+` \|/.test(line));
  return new Map(rows.map((line) => {
    const [event, level] = line.slice(1, -1).split(' | ').map((cell) => cell.trim());
    return [event.slice(1, -1), level];
  }));
}

it('docs/observability.md lists every log event once, at the level the code logs it', () => {
  const logged = loggedEvents();
  const documented = documentedEvents();
  expect(logged.size).toBeGreaterThan(40);
  expect([...documented.keys()].sort()).toEqual([...logged.keys()].sort());
  for (const [event, levels] of logged) expect([...levels], event).toEqual([documented.get(event)]);
});
