import { parseJson } from '../../../../compiler/config/json-parse.ts';
// The JSON an answer holds: the whole text, or else the first ``` code fence whose content parses
// (models often wrap JSON in ```json … ```). Shared by jsonSchema and jsonKeys.

const FENCE = /```[^\n`]*\n([\s\S]*?)```/g;

export type FoundJson = { found: true; value: unknown } | { found: false };

export function jsonInText(text: string): FoundJson {
  const whole = parse(text.trim());
  if (whole.found) return whole;
  for (const match of text.matchAll(FENCE)) {
    const fenced = parse(match[1].trim());
    if (fenced.found) return fenced;
  }
  return { found: false };
}

function parse(text: string): FoundJson {
  if (text === '') return { found: false };
  try {
    return { found: true, value: parseJson(text) };
  } catch {
    return { found: false };
  }
}
