// default.jsonSchema's validations, on a thread of their own (json-schema-thread.ts sends them).
// A schema is a program a config brings, and an inline config is client input: `oneOf` alternatives
// that recurse through `$ref` take time exponential in the depth of a 150-character JSON, and
// `uniqueItems` over objects quadratic in the array's length. Here such a validation holds this
// thread only, and the serving thread ends it at its time limit by ending the thread.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { newCheckSchemaAjv } from '../../../../compiler/config/check-schema-ajv.ts';
import { evictOldest } from '../../../core/evict-oldest.ts';

/** Validate `value` against the schema whose canonical JSON text is `schema`. */
export interface JudgeMessage {
  id: number;
  schema: string;
  value: unknown;
}

export type JudgeReply =
  | { id: number; holds: boolean; problem: string | null }
  | { id: number; failed: string }
  /** The schema was compiled for this validation, which starts now (its time limit counts from here). */
  | { id: number; compiled: true }
  | { ready: true };

/** Compiled schemas kept (the most recently used): inline configs can bring a new schema with each request. */
const KEPT_SCHEMAS = 256;

const compiled = new Map<string, ValidateFunction>();

/** The port the serving thread reads answers from (json-schema-thread.ts). */
const replies = (workerData as { replies: MessagePort }).replies;

function validatorOf(id: number, schema: string): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate !== undefined) {
    compiled.delete(schema);
  } else {
    // Compiling is not judging: its time depends on the schema alone, not on the JSON judged, and a
    // fresh thread's first compile is slow (nothing is optimised yet).
    validate = newCheckSchemaAjv().compile(JSON.parse(schema) as object);
    replies.postMessage({ id, compiled: true } satisfies JudgeReply);
  }
  compiled.set(schema, validate);
  evictOldest(compiled, KEPT_SCHEMAS);
  return validate;
}

parentPort!.on('message', ({ id, schema, value }: JudgeMessage) => {
  let reply: JudgeReply;
  try {
    const validate = validatorOf(id, schema);
    const holds = validate(value) === true;
    const first = validate.errors?.[0];
    reply = { id, holds, problem: holds || first === undefined ? null : `${first.instancePath || '/'} ${first.message ?? ''}`.trim() };
  } catch (error) {
    reply = { id, failed: (error as Error).message };
  }
  replies.postMessage(reply);
});

// Ajv loaded before the first validation's clock starts (the serving thread waits for this).
newCheckSchemaAjv();
replies.postMessage({ ready: true } satisfies JudgeReply);
