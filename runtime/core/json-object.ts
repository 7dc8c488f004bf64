// Whether a parsed JSON value is an object (not null, not an array): what a body, an answer or one
// of their members must be before its members are read.
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
