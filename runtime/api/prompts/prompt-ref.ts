// How a prompt is named where it is used (render path, a config's prompt_id): `id` for the latest
// version, `id@3` for version 3. Prompt IDs cannot contain `@`.

export interface PromptRef {
  id: string;
  version: number | undefined;
}

const WITH_VERSION = /^(.+)@([1-9][0-9]{0,8})$/;

export function parsePromptRef(text: string): PromptRef {
  const match = WITH_VERSION.exec(text);
  return match === null ? { id: text, version: undefined } : { id: match[1], version: Number(match[2]) };
}
