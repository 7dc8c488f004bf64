// The fields `gateway compile` warns have no effect where they are set (CFG_FIELD_WITHOUT_EFFECT,
// CFG_BREAKER_NEVER_SKIPS). A config file gets them as warnings, read in review, and keeps loading;
// a config nothing reviews after it is accepted (saved through the API, sent inline) is refused
// with them as errors instead.
import { BREAKER_NEVER_SKIPS, BREAKER_NEVER_SKIPS_MESSAGE, idleBreakerPointers } from './idle-breakers.ts';
import { FIELD_WITHOUT_EFFECT, ignoredFields } from './ignored-fields.ts';

export interface WithoutEffect {
  code: typeof FIELD_WITHOUT_EFFECT | typeof BREAKER_NEVER_SKIPS;
  pointer: string;
  message: string;
  hint?: string;
}

export function withoutEffect(config: unknown): WithoutEffect[] {
  return [
    ...ignoredFields(config).map(({ pointer, message }): WithoutEffect => ({ code: FIELD_WITHOUT_EFFECT, pointer, message })),
    ...idleBreakerPointers(config).map((pointer): WithoutEffect => ({ code: BREAKER_NEVER_SKIPS, pointer, message: BREAKER_NEVER_SKIPS_MESSAGE })),
  ];
}
