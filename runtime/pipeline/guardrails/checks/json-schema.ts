// default.jsonSchema: the text is JSON (or holds it in a code fence) that the `schema` accepts. The
// schema was checked when the config compiled; the validation runs on a thread of its own with a time
// limit (json-schema-thread.ts), as a schema can take time exponential in the JSON it judges. A
// validation stopped at the limit is a check that could not run, and fails unless failOnError says
// otherwise: a deny rule must not be passed by JSON made slow to judge.
import { canonicalJson } from '../../../core/canonical-json.ts';
import { type CheckDefinition, verdictOf } from '../check.ts';
import { jsonInText } from './json-in-text.ts';
import { jsonSchemaThread } from './json-schema-thread.ts';

export const jsonSchema: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  failOnErrorByDefault: true,
  prepare(parameters) {
    // The thread keeps each schema compiled under this text: equal schemas (the same guardrail in
    // several routes, a config reloaded) are compiled once.
    const schema = canonicalJson(parameters.schema);
    return async (input) => {
      const json = jsonInText(input.text);
      if (!json.found) return verdictOf(false, parameters, 'no JSON in the text');
      // Its time on the thread is the request's check budget's (the input carries the budget and the request's signal).
      const judged = await jsonSchemaThread().judge(schema, json.value, input);
      return verdictOf(judged.holds, parameters, judged.holds ? 'the JSON fits the schema' : `the JSON does not fit the schema: ${judged.problem ?? ''}`.trim());
    };
  },
};
