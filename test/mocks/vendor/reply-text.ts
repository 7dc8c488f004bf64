// The mock's "model": it answers with its instance label followed by the prompt's words, one
// token per word, so a test can tell which instance served a request and what prompt reached it.

export interface Reply {
  tokens: string[];
  finishReason: 'stop' | 'length';
}

export function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

export function replyFor(label: string, prompt: string, maxTokens: number | null): Reply {
  const tokens = [`[${label}]`];
  const promptWords = words(prompt);
  if (promptWords.length === 0) tokens.push(' Hello!');
  for (const word of promptWords) tokens.push(` ${word}`);
  if (maxTokens !== null && tokens.length > maxTokens) {
    return { tokens: tokens.slice(0, maxTokens), finishReason: 'length' };
  }
  return { tokens, finishReason: 'stop' };
}

/** Text of a chat message content: a string, or the text parts of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) {
    const text = (part as { type?: unknown; text?: unknown } | null)?.text;
    if (typeof text === 'string') parts.push(text);
  }
  return parts.join(' ');
}

/** Reads an optional non-negative integer parameter; undefined when absent or null. */
export function optionalCount(value: unknown): number | null | 'invalid' {
  if (value === undefined || value === null) return null;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 'invalid';
}
