// What hooks read and what transformers rewrite in a family's own chat API called through the
// pass-through (runtime/pipeline/metered-pass-through.ts): the messages API (a Claude model's
// invoke too), generateContent and converse, and the formats of other models' invoke the gateway
// reads (invoke-nova.ts, invoke-completions.ts, invoke-openai-chat.ts, invoke-mistral.ts). The same rules as the gateway's own endpoints
// (hook-text.ts), in each dialect's shapes: checks judge the last user turn's text before the
// request (a turn of tool results only is the client's program answering, as a chat's tool message,
// and is passed over) and the answer's text after it (each of generateContent's candidates, as a
// chat's choices); transformers rewrite every text (the system prompt, every turn's text, tool
// results' text, the answer's text and reasoning). Two things stay as they are: what a model reads as
// data (a tool call's input, a function response's JSON), and the model's reasoning sent back in a
// request (a thinking block, a thought part, a reasoning block), which the providers sign and refuse
// altered; those are the provider's own words going back to it.
export type Json = Record<string, unknown>;

/** Why a request in a family's own dialect has no text a check can read. */
export const NOT_AN_OBJECT = 'the request\'s body is not the JSON object its API takes, where no check can tell the text; not judged';

/** A transformer applied to one text (it counts what it found). */
export type Apply = (text: string) => string;

export interface OwnText {
  /** Why a request body (a JSON object) has no text a check can read in this dialect; absent when every object can be read. */
  unreadable?(body: Json): string | null;
  /** The text checks judge of a request: its last user turn's, tool results passed over. */
  requestText(body: Json): string;
  /** The request with `apply` run on every text it holds (copies where it changed anything). */
  rewriteRequest(body: Json, apply: Apply): Json;
  /** The texts checks judge of an answer: one per candidate (the first unnamed), each named for explanations. */
  answerTexts(answer: Json): Array<{ label: string; text: string }>;
  /** The answer with `apply` run on every text it holds, its reasoning too. */
  rewriteAnswer(answer: Json, apply: Apply): Json;
  /** A whole answer's texts by slot (`{candidate or block}:{member}`), for placing a judged stream's texts back in its events. */
  slots(answer: unknown): Map<string, string>;
  /** A reader of the dialect's stream, event by event, into the whole answer it stands for. */
  streamReader(): OwnStreamReader;
}

/** A piece of text one stream event carries. */
export interface Piece {
  slot: string;
  text: string;
  /** Where a rewritten text goes first: a delta (the SDKs' text events come from deltas), not a block's opening. */
  primary: boolean;
  /** Sets the piece's text in its event (the event is the reader's own copy). */
  put(text: string): void;
}

export interface OwnStreamReader {
  /** One event, its JSON and its type where the framing names it apart: the text pieces it carries. */
  read(event: Json, type: string | undefined): Piece[];
  /** The whole answer the events read so far stand for, in the dialect's JSON shape. */
  answer(): Json;
}

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The last of `turns` (by `isUser`) that is not tool results only, or null. */
export function lastUserTurn(turns: unknown, isUser: (turn: Json) => boolean, onlyToolResults: (turn: Json) => boolean): Json | null {
  if (!Array.isArray(turns)) return null;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn: unknown = turns[i];
    if (isObject(turn) && isUser(turn) && !onlyToolResults(turn)) return turn;
  }
  return null;
}

/** A request whose text is in `system` and each turn's `content` (the messages API, converse), both run through `rewrite`. */
export function rewriteSystemAndTurns(body: Json, rewrite: (content: unknown) => unknown): Json {
  const rewritten: Json = { ...body };
  if (body.system !== undefined) rewritten.system = rewrite(body.system);
  if (Array.isArray(body.messages)) rewritten.messages = body.messages.map((turn: unknown) => (isObject(turn) ? { ...turn, content: rewrite(turn.content) } : turn));
  return rewritten;
}
