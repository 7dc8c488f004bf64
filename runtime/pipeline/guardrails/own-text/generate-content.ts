// generateContent's text. A request: `systemInstruction` and `contents`, each turn's `parts` (text,
// and parts that hold no text a check reads: inline data, function calls and responses; a thought
// part is the model's reasoning sent back). An answer, and each event of its stream: `candidates`,
// each with its `content.parts` (text, thought parts: the reasoning); a candidate is judged as a
// chat's choice, named by its `index`.
import { type Apply, isObject, type Json, lastUserTurn, type OwnStreamReader, type OwnText, type Piece } from './own-text.ts';

type Member = 'text' | 'thought';

function isTextPart(part: unknown): part is Json & { text: string } {
  return isObject(part) && typeof part.text === 'string';
}

function memberOf(part: Json & { text: string }): Member {
  return part.thought === true ? 'thought' : 'text';
}

function partsOf(content: unknown): unknown[] {
  return isObject(content) && Array.isArray(content.parts) ? content.parts : [];
}

/** A content's text parts joined (not its thoughts). */
function textOfContent(content: unknown): string {
  let text = '';
  for (const part of partsOf(content)) if (isTextPart(part) && part.thought !== true) text += part.text;
  return text;
}

function onlyToolResults(turn: Json): boolean {
  const parts = partsOf(turn);
  return parts.length > 0 && parts.every((part) => isObject(part) && part.functionResponse !== undefined);
}

/** `content` with `apply` run on its text parts (a request's thoughts too when `thoughts`). */
function rewriteContent(content: unknown, apply: Apply, thoughts: boolean): unknown {
  if (typeof content === 'string') return apply(content);
  if (!isObject(content) || !Array.isArray(content.parts)) return content;
  return { ...content, parts: content.parts.map((part) => (isTextPart(part) && (thoughts || part.thought !== true) ? { ...part, text: apply(part.text) } : part)) };
}

function candidatesOf(answer: unknown): Json[] {
  return isObject(answer) && Array.isArray(answer.candidates) ? answer.candidates.filter(isObject) : [];
}

function indexOf(candidate: Json, position: number): number {
  return typeof candidate.index === 'number' ? candidate.index : position;
}

class GenerateContentStreamReader implements OwnStreamReader {
  #last: Json = {};
  readonly #candidates = new Map<number, { texts: Record<Member, string | null>; finishReason: unknown }>();

  read(event: Json): Piece[] {
    const { candidates: _candidates, ...rest } = event;
    this.#last = { ...this.#last, ...rest };
    const pieces: Piece[] = [];
    candidatesOf(event).forEach((candidate, position) => {
      const index = indexOf(candidate, position);
      let held = this.#candidates.get(index);
      if (held === undefined) this.#candidates.set(index, (held = { texts: { text: null, thought: null }, finishReason: undefined }));
      if (candidate.finishReason !== undefined) held.finishReason = candidate.finishReason;
      for (const part of partsOf(candidate.content)) {
        if (!isTextPart(part)) continue;
        const member = memberOf(part);
        held.texts[member] = (held.texts[member] ?? '') + part.text;
        pieces.push({ slot: `${index}:${member}`, text: part.text, primary: true, put: (text) => (part.text = text) });
      }
    });
    return pieces;
  }

  answer(): Json {
    const candidates = [...this.#candidates].sort(([a], [b]) => a - b).map(([index, held]) => {
      const parts: Json[] = [];
      if (held.texts.thought !== null) parts.push({ text: held.texts.thought, thought: true });
      if (held.texts.text !== null) parts.push({ text: held.texts.text });
      return { index, content: { role: 'model', parts }, ...(held.finishReason === undefined ? {} : { finishReason: held.finishReason }) };
    });
    return { ...this.#last, candidates };
  }
}

export const generateContentText: OwnText = {
  requestText(body) {
    // A turn without a role is the user's (a single-turn request names none).
    const turn = lastUserTurn(body.contents, (t) => t.role === undefined || t.role === 'user', onlyToolResults);
    return turn === null ? '' : textOfContent(turn);
  },
  rewriteRequest(body, apply) {
    const rewritten: Json = { ...body };
    if (body.systemInstruction !== undefined) rewritten.systemInstruction = rewriteContent(body.systemInstruction, apply, false);
    if (Array.isArray(body.contents)) rewritten.contents = body.contents.map((turn) => rewriteContent(turn, apply, false));
    return rewritten;
  },
  answerTexts(answer) {
    const candidates = candidatesOf(answer);
    if (candidates.length === 0) return [{ label: '', text: '' }];
    return candidates.map((candidate, position) => ({ label: position === 0 ? '' : `candidate ${indexOf(candidate, position)}`, text: textOfContent(candidate.content) }));
  },
  rewriteAnswer(answer, apply) {
    if (!Array.isArray(answer.candidates)) return answer;
    const candidates = answer.candidates.map((candidate) => {
      if (!isObject(candidate)) return candidate;
      let changed = false;
      const content = rewriteContent(candidate.content, (text) => {
        const out = apply(text);
        changed ||= out !== text;
        return out;
      }, true);
      if (!changed) return candidate;
      // Its log probabilities spell the tokens it wrote, replaced ones among them: a rewritten candidate has none.
      const { logprobsResult: _logprobs, ...rest } = candidate;
      return { ...rest, content };
    });
    return { ...answer, candidates };
  },
  slots(answer) {
    const slots = new Map<string, string>();
    candidatesOf(answer).forEach((candidate, position) => {
      const index = indexOf(candidate, position);
      for (const part of partsOf(candidate.content)) {
        if (!isTextPart(part)) continue;
        const slot = `${index}:${memberOf(part)}`;
        slots.set(slot, (slots.get(slot) ?? '') + part.text);
      }
    });
    return slots;
  },
  streamReader: () => new GenerateContentStreamReader(),
};
