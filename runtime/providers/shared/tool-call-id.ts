// A tool call's id as the messages API and converse take it: letters, digits, `_` and `-`, at most
// 64 (their own answers' ids are such). A conversation may carry ids another provider made, in
// another alphabet (Kimi's `functions.get_weather:0`), and a fallback or a switch of models sends
// them to Claude, whose 400 would end the conversation there. Such an id is rewritten the same way
// wherever it appears (the call, and the result that answers it), so the pair still matches; an id
// already in the alphabet goes as it is.
import { createHash } from 'node:crypto';

const TAKEN = /^[a-zA-Z0-9_-]{1,64}$/;
/** Characters of a hash suffix that keeps two rewritten ids apart (base64url is of the alphabet). */
const SUFFIX_LENGTH = 12;

export function claudeToolCallId(id: string): string {
  if (TAKEN.test(id)) return id;
  const suffix = createHash('sha256').update(id).digest('base64url').slice(0, SUFFIX_LENGTH);
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64 - SUFFIX_LENGTH - 1)}_${suffix}`;
}
