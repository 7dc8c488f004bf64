// default.containsCode: the text holds a fenced code block (```lang) in the given language. Languages
// are known by the names code fences use for them (```py and ```python are both Python).
import { type CheckDefinition, verdictOf } from '../check.ts';

/** Fence tags (lower case) per format of schema/checks/containsCode-check.json. */
export const FENCE_TAGS: Readonly<Record<string, readonly string[]>> = {
  SQL: ['sql', 'mysql', 'postgresql', 'psql', 'sqlite'],
  Python: ['python', 'py', 'python3'],
  TypeScript: ['typescript', 'ts', 'tsx'],
  JavaScript: ['javascript', 'js', 'jsx', 'mjs', 'cjs', 'node'],
  Java: ['java'],
  'C#': ['c#', 'csharp', 'cs'],
  'C++': ['c++', 'cpp', 'cxx', 'cc', 'hpp'],
  C: ['c', 'h'],
  Ruby: ['ruby', 'rb'],
  PHP: ['php'],
  Swift: ['swift'],
  Kotlin: ['kotlin', 'kt', 'kts'],
  Go: ['go', 'golang'],
  Rust: ['rust', 'rs'],
  Scala: ['scala'],
  R: ['r'],
  Perl: ['perl', 'pl'],
  Shell: ['shell', 'sh', 'bash', 'zsh', 'console', 'shellscript'],
  HTML: ['html', 'htm', 'xhtml'],
  CSS: ['css'],
  XML: ['xml'],
  JSON: ['json', 'jsonc'],
  YAML: ['yaml', 'yml'],
  Markdown: ['markdown', 'md'],
  Dockerfile: ['dockerfile', 'docker'],
};

const OPENING_FENCE = /^[ \t]*```[ \t]*([^\s`{]+)/gm;

/** The language tags of the text's opening code fences, lower case. */
export function fenceTags(text: string): string[] {
  return [...text.matchAll(OPENING_FENCE)].map((m) => m[1].toLowerCase());
}

export const containsCode: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    const format = parameters.format as string;
    const tags = new Set(FENCE_TAGS[format]);
    return (input) => {
      const holds = fenceTags(input.text).some((tag) => tags.has(tag));
      return verdictOf(holds, parameters, holds ? `has ${format} code` : `no ${format} code block`);
    };
  },
};
