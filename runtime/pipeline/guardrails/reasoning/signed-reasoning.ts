// The model's signed reasoning in a family's own chat API, where the provider checks a signature over
// its text when a later request sends it back: the messages API's thinking blocks (`thinking`,
// `signature`; a Claude model's invoke speaks it too) and converse's reasoning blocks
// (`reasoningContent.reasoningText`: `text`, `signature`), and of the bodies cloud C's token count
// wraps. An output transformer rewrites an answer's
// reasoning (the client must not see a redacted value), which no longer matches its signature; what
// the gateway rewrote it keeps (reasoning-memory.ts) and puts back when the rewritten block returns.
// generateContent's thought signatures are not here: one is the model's thought itself, encrypted,
// riding on a part (a function call, a text) that the service wants back intact; the thought summary
// a transformer rewrites is not what it checks.
import type { OwnReading, TextDialect } from '../../metered-pass-through.ts';
import { isObject, type Json } from '../own-text/own-text.ts';
import { countedOf, wrappedAgain } from '../own-text/own-texts.ts';

/** A reasoning block's text and the signature the provider made over it. */
export interface SignedText {
  signature: string;
  text: string;
}

/** A signed block an answer's rewrite changed: its signature, its original text and the text the client got. */
export interface RewrittenBlock {
  signature: string;
  original: string;
  rewritten: string;
}

/** Where a dialect keeps its signed reasoning: in an answer, and in the assistant turns a request sends back. */
interface SignedReasoning {
  /** The signed reasoning blocks of an answer, in order. */
  inAnswer(answer: unknown): SignedText[];
  /** The signed reasoning blocks a request sends back, in order. */
  inRequest(body: Json): SignedText[];
  /** The request with each signed block's text replaced by `restore`'s answer for it (the same block where it answers null); copies where it changed anything. */
  restored(body: Json, restore: (block: SignedText) => string | null): Json;
}

/** A thinking block's text and signature, or null. */
function thinkingBlock(block: unknown): SignedText | null {
  if (!isObject(block) || block.type !== 'thinking' || typeof block.thinking !== 'string' || typeof block.signature !== 'string' || block.signature === '') return null;
  return { signature: block.signature, text: block.thinking };
}

/** A converse reasoning block's reasoningText, when it holds a text and a signature, or null. */
function reasoningText(block: unknown): (Json & SignedText) | null {
  const reasoning = isObject(block) && isObject(block.reasoningContent) ? block.reasoningContent.reasoningText : undefined;
  if (!isObject(reasoning) || typeof reasoning.text !== 'string' || typeof reasoning.signature !== 'string' || reasoning.signature === '') return null;
  return reasoning as Json & SignedText;
}

function converseSigned(block: unknown): SignedText | null {
  const reasoning = reasoningText(block);
  return reasoning === null ? null : { signature: reasoning.signature, text: reasoning.text };
}

/** Every turn's blocks of `body.messages` that `signed` reads as signed reasoning. */
function inTurns(body: Json, signed: (block: unknown) => SignedText | null): SignedText[] {
  const found: SignedText[] = [];
  if (!Array.isArray(body.messages)) return found;
  for (const turn of body.messages) {
    if (!isObject(turn) || !Array.isArray(turn.content)) continue;
    for (const block of turn.content) {
      const text = signed(block);
      if (text !== null) found.push(text);
    }
  }
  return found;
}

/** `body` with each turn's block that `put` changes replaced (turns and lists copied only where one changed). */
function restoredTurns(body: Json, put: (block: unknown) => unknown): Json {
  if (!Array.isArray(body.messages)) return body;
  let changed = false;
  const messages = body.messages.map((turn: unknown) => {
    if (!isObject(turn) || !Array.isArray(turn.content)) return turn;
    let turnChanged = false;
    const content = turn.content.map((block: unknown) => {
      const out = put(block);
      if (out !== block) turnChanged = true;
      return out;
    });
    if (!turnChanged) return turn;
    changed = true;
    return { ...turn, content };
  });
  return changed ? { ...body, messages } : body;
}

const messagesReasoning: SignedReasoning = {
  inAnswer: (answer) => (isObject(answer) && Array.isArray(answer.content) ? answer.content.map(thinkingBlock).filter((b) => b !== null) : []),
  inRequest: (body) => inTurns(body, thinkingBlock),
  restored: (body, restore) => restoredTurns(body, (block) => {
    const signed = thinkingBlock(block);
    const original = signed === null ? null : restore(signed);
    return original === null ? block : { ...(block as Json), thinking: original };
  }),
};

function converseAnswerBlocks(answer: unknown): unknown[] {
  const output = isObject(answer) ? answer.output : undefined;
  const message = isObject(output) ? output.message : undefined;
  return isObject(message) && Array.isArray(message.content) ? message.content : [];
}

const converseReasoning: SignedReasoning = {
  inAnswer: (answer) => converseAnswerBlocks(answer).map(converseSigned).filter((b) => b !== null),
  inRequest: (body) => inTurns(body, converseSigned),
  restored: (body, restore) => restoredTurns(body, (block) => {
    const reasoning = reasoningText(block);
    const original = reasoning === null ? null : restore({ signature: reasoning.signature, text: reasoning.text });
    if (original === null) return block;
    const b = block as Json;
    return { ...b, reasoningContent: { ...(b.reasoningContent as Json), reasoningText: { ...reasoning, text: original } } };
  }),
};

const BY_DIALECT = { messages: messagesReasoning, converse: converseReasoning };

/**
 * Cloud C's token count: the reasoning of the body it wraps (a converse body, or a Claude model's
 * invoke body in base64), so that what is counted is what the call would send.
 */
function countReasoning(claude: boolean): SignedReasoning {
  return {
    inAnswer: () => [],
    inRequest: (body) => {
      const inner = countedOf(body, claude);
      return inner === null ? [] : BY_DIALECT[inner.dialect].inRequest(inner.body);
    },
    restored: (body, restore) => {
      const inner = countedOf(body, claude);
      if (inner === null) return body;
      const value = BY_DIALECT[inner.dialect].restored(inner.body, restore);
      return value === inner.body ? body : wrappedAgain(body, inner, value);
    },
  };
}

/** The calls whose reasoning the provider signs, by the reading of their request. */
export const SIGNED_REASONING: Partial<Record<OwnReading, SignedReasoning>> = {
  ...BY_DIALECT,
  converseCount: countReasoning(false),
  claudeCount: countReasoning(true),
};

/** Where a request's signed blocks may be base64 (a Claude model's invoke body in a token count), not found by searching its bytes. */
export const ENCODED_REASONING: ReadonlySet<OwnReading> = new Set(['claudeCount']);

/** What an answer's rewrite changed of its signed reasoning: each block whose text it changed, the original beside the rewritten. */
export function rewrittenReasoning(dialect: TextDialect, answer: unknown, judged: unknown): RewrittenBlock[] {
  const reasoning = SIGNED_REASONING[dialect];
  if (reasoning === undefined || answer === judged) return [];
  const before = reasoning.inAnswer(answer);
  if (before.length === 0) return [];
  const after = reasoning.inAnswer(judged);
  const changed: RewrittenBlock[] = [];
  for (const block of before) {
    // By signature: a webhook's transformedData may reorder or drop blocks.
    const now = after.find((b) => b.signature === block.signature);
    if (now !== undefined && now.text !== block.text) changed.push({ signature: block.signature, original: block.text, rewritten: now.text });
  }
  return changed;
}
