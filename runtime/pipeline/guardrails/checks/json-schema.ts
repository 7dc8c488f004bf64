// default.jsonSchema: the text is JSON (or holds it in a code fence) that the `schema` accepts. The
// schema was checked when the config compiled; it is compiled once here, when the router is built.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type CheckDefinition, verdictOf } from '../check.ts';
import { jsonInText } from './json-in-text.ts';

// One Ajv for every jsonSchema check: compiled validators are kept per schema object.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });

export const jsonSchema: CheckDefinition = {
  kind: 'verdict',
  prepare(parameters) {
    const validate = ajv.compile(parameters.schema as object);
    return (input) => {
      const json = jsonInText(input.text);
      if (!json.found) return verdictOf(false, parameters, 'no JSON in the text');
      const holds = validate(json.value) === true;
      const first = validate.errors?.[0];
      return verdictOf(holds, parameters, holds ? 'the JSON fits the schema' : `the JSON does not fit the schema: ${first === undefined ? '' : `${first.instancePath || '/'} ${first.message ?? ''}`}`.trim());
    };
  },
};
