// The generated validator modules are kept in memory as their source text, one byte a character only
// when every character is Latin-1 (compiler/schemas/standalone-module.ts escapes the others).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { standaloneModule } from '../../compiler/schemas/standalone-module.ts';

const beyondLatin1 = (text: string) => [...text].filter((c) => c.codePointAt(0)! > 0xff);

it('the generated validator modules hold no character past Latin-1', () => {
  for (const file of ['generated/validators.js', 'generated/config-validator.js']) {
    expect(beyondLatin1(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')), file).toEqual([]);
  }
});

it('a schema text past Latin-1 is escaped, and the validator reports it unchanged', async () => {
  const ajv = new Ajv2020({ code: { source: true, esm: true }, allErrors: false });
  ajv.addSchema({ $id: 'https://example.com/t.json', type: 'string', enum: ['a … b', 'emoji 😀'], description: '§ and → and …' });
  const source = standaloneModule(ajv, { validateT: 'https://example.com/t.json' });
  expect(beyondLatin1(source)).toEqual([]);
  // A file beside this test: the module's createRequire needs a file URL, and Ajv's helpers resolve from here.
  const file = join(import.meta.dirname, `.latin1-${process.pid}.mjs`);
  writeFileSync(file, source);
  let module: { validateT: (v: unknown) => boolean };
  try {
    module = (await import(pathToFileURL(file).href)) as typeof module;
  } finally {
    rmSync(file);
  }
  expect(module.validateT('a … b')).toBe(true);
  expect(module.validateT('emoji 😀')).toBe(true);
  expect(module.validateT('a ... b')).toBe(false);
});
