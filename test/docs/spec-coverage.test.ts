// docs/spec-coverage.md points at docs and tests that exist: every test path (or glob) names at
// least one file, and every doc link names a file and, with an anchor, one of its headings.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = join(ROOT, 'docs/spec-coverage.md');
const text = readFileSync(PAGE, 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => m[1].toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-')));
}

function matches(pattern: string): string[] {
  const dir = join(ROOT, dirname(pattern));
  if (!existsSync(dir)) return [];
  const name = new RegExp(`^${pattern.split('/').at(-1)!.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
  return readdirSync(dir).filter((file) => name.test(file));
}

describe('docs/spec-coverage.md', () => {
  it('names only test files that exist', () => {
    const paths = [...text.matchAll(/`(test\/[^`]+)`/g)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) expect(matches(path), path).not.toEqual([]);
  });

  it('links only to docs and headings that exist', () => {
    const links = [...text.matchAll(/\]\(([^)#]+)(?:#([^)]+))?\)/g)];
    expect(links.length).toBeGreaterThan(30);
    for (const [, file, anchor] of links) {
      const target = resolve(dirname(PAGE), file);
      expect(existsSync(target), file).toBe(true);
      if (anchor !== undefined) expect(anchorsOf(readFileSync(target, 'utf8')), `${file}#${anchor}`).toContain(anchor);
    }
  });

  it('covers all nine parts of the specification', () => {
    for (const part of ['| 1 ·', '| 2.1 ·', '| 3 ·', '| 4 ·', '| 5.1 ·', '| 6 ·', '| 7 ·', '| 8 ·', '| 9 ·']) expect(text).toContain(part);
  });
});
