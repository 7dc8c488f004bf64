// Cloud B's embeddings through the pass-through (`:predict` on a text embedding model): its request's
// texts are its instances' `content` (and a document's `title`, text the model reads with it), read
// as the vendor's embedding `input` is: every text joined, one per line, for checks; every text
// rewritten by transformers. Its answer is vectors, with no text (judged as `""`).
import type { PhaseBody } from '../run-hooks.ts';
import { NO_OTHER_TEXTS } from '../hook-text.ts';
import { isObject, type Json, NOT_AN_OBJECT } from './own-text.ts';

/** The members of an instance that hold text, in the order the model reads them. */
const TEXT_MEMBERS = ['title', 'content'] as const;

function instancesOf(body: unknown): unknown[] {
  return isObject(body) && Array.isArray(body.instances) ? body.instances : [];
}

function textsOf(body: unknown): string {
  const texts: string[] = [];
  for (const instance of instancesOf(body)) {
    if (!isObject(instance)) continue;
    for (const member of TEXT_MEMBERS) if (typeof instance[member] === 'string') texts.push(instance[member]);
  }
  return texts.join('\n');
}

export const PREDICT_REQUEST_BODY: PhaseBody = {
  textOf: textsOf,
  otherTexts: () => NO_OTHER_TEXTS,
  unreadable: (body) => (isObject(body) ? null : NOT_AN_OBJECT),
  rewrite: (body, transform) => {
    if (!isObject(body) || !Array.isArray(body.instances)) return { value: body, found: 0 };
    let found = 0;
    const instances = body.instances.map((instance: unknown) => {
      if (!isObject(instance)) return instance;
      let copy: Json | null = null;
      for (const member of TEXT_MEMBERS) {
        const text = instance[member];
        if (typeof text !== 'string') continue;
        const out = transform(text);
        found += out.found;
        if (out.found > 0) (copy ??= { ...instance })[member] = out.text;
      }
      return copy ?? instance;
    });
    return found === 0 ? { value: body, found } : { value: { ...body, instances }, found };
  },
};
