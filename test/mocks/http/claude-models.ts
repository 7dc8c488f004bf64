// A Claude model's generation as the mocks read it from the model's name (`claude-opus-4-7`,
// `anthropic.claude-sonnet-4-5-20250929-v1:0`, `claude-3-7-sonnet-20250219`), independently of the
// gateway's code: what the services decide by model, the mocks decide by this.

export interface ClaudeVersion {
  /** major × 100 + minor: 407 for 4.7; 0 for a name without a version. */
  version: number;
  /** Of a line that began after the numbered ones (Mythos, Fable), whose features are the latest. */
  laterLine: boolean;
}

export function claudeVersionOf(model: string): ClaudeVersion {
  const parts = (/claude-([a-z0-9.:-]+)/.exec(model)?.[1] ?? '').split(/[-.]/);
  const [major = 0, minor = 0] = parts.filter((part) => /^\d{1,2}$/.test(part)).map(Number);
  return { version: major * 100 + minor, laterLine: parts.includes('mythos') || parts.includes('fable') };
}
