// Cloud B's `:predict` through the pass-through, on the models whose instances the gateway reads.
// Embeddings (a text embedding model's): its request's texts are its instances' `content` (and a
// document's `title`, text the model reads with it), read as the vendor's embedding `input` is:
// every text joined, one per line, for checks; every text rewritten by transformers. Image generation
// (an Imagen model's): its instances' `prompt`, read as an image request's prompt is, and its
// `parameters.negativePrompt` (what the image is not to show) rewritten with them, not judged, as a
// chat's system prompt is rewritten but not judged. Their answers have no text: vectors are judged
// as `""`, images not at all (as the images endpoint's: hook-stage.ts).
import type { PhaseBody } from '../run-hooks.ts';
import { NO_OTHER_TEXTS } from '../hook-text.ts';
import { isObject, type Json, NOT_AN_OBJECT } from './own-text.ts';
import type { TextTransform } from '../check.ts';

function instancesOf(body: unknown): unknown[] {
  return isObject(body) && Array.isArray(body.instances) ? body.instances : [];
}

/** `holder` with `transform` run on each of its string `members`, a copy where it found anything; what it found added to `found.count`. */
function rewriteMembers(holder: Json, members: readonly string[], transform: TextTransform, found: { count: number }): Json {
  let copy: Json | null = null;
  for (const member of members) {
    const text = holder[member];
    if (typeof text !== 'string') continue;
    const out = transform(text);
    found.count += out.found;
    if (out.found > 0) (copy ??= { ...holder })[member] = out.text;
  }
  return copy ?? holder;
}

/** A `:predict` body whose instances' `judged` members are its text, and whose `parameters`' `rewritten` members are rewritten with them. */
function predictBody(judged: readonly string[], rewritten: readonly string[]): PhaseBody {
  return {
    textOf(body) {
      const texts: string[] = [];
      for (const instance of instancesOf(body)) {
        if (!isObject(instance)) continue;
        for (const member of judged) if (typeof instance[member] === 'string') texts.push(instance[member]);
      }
      return texts.join('\n');
    },
    otherTexts: () => NO_OTHER_TEXTS,
    unreadable: (body) => (isObject(body) ? null : NOT_AN_OBJECT),
    rewrite(body, transform) {
      if (!isObject(body)) return { value: body, found: 0 };
      const found = { count: 0 };
      const instances = Array.isArray(body.instances) ? body.instances.map((instance: unknown) => (isObject(instance) ? rewriteMembers(instance, judged, transform, found) : instance)) : body.instances;
      const parameters = isObject(body.parameters) ? rewriteMembers(body.parameters, rewritten, transform, found) : body.parameters;
      return found.count === 0 ? { value: body, found: 0 } : { value: { ...body, instances, parameters }, found: found.count };
    },
  };
}

export const PREDICT_REQUEST_BODY = predictBody(['title', 'content'], []);
export const IMAGE_PREDICT_REQUEST_BODY = predictBody(['prompt'], ['negativePrompt']);
