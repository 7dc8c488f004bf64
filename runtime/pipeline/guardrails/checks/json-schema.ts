// default.jsonSchema: the text is JSON (or holds it in a code fence) that the `schema` accepts. The
// schema was checked when the config compiled; it is compiled once here, when the router is built.
import { newCheckSchemaAjv } from '../../../../compiler/config/check-schema-ajv.ts';
import { type CheckDefinition, verdictOf } from '../check.ts';
import { jsonInText } from './json-in-text.ts';

export const jsonSchema: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters) {
    // An Ajv of its own: one shared by every check refused a schema whose $id it had seen, so the
    // same schema in a second hook, or in the config reloaded, failed to build.
    const validate = newCheckSchemaAjv().compile(parameters.schema as object);
    return (input) => {
      const json = jsonInText(input.text);
      if (!json.found) return verdictOf(false, parameters, 'no JSON in the text');
      const holds = validate(json.value) === true;
      const first = validate.errors?.[0];
      return verdictOf(holds, parameters, holds ? 'the JSON fits the schema' : `the JSON does not fit the schema: ${first === undefined ? '' : `${first.instancePath || '/'} ${first.message ?? ''}`}`.trim());
    };
  },
};
