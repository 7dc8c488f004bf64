// Every built-in check by id. The ids and parameter schemas are schema/checks/ (generated/checks.ts);
// test/guardrails/check-registry.test.ts keeps this list and that one the same.
import type { CheckDefinition } from './check.ts';
import { allowedRequestTypes } from './checks/allowed-request-types.ts';
import { characterCount } from './checks/character-count.ts';
import { contains } from './checks/contains.ts';
import { containsCode } from './checks/contains-code.ts';
import { endsWith } from './checks/ends-with.ts';
import { jsonKeys } from './checks/json-keys.ts';
import { jsonSchema } from './checks/json-schema.ts';
import { jwt } from './checks/jwt.ts';
import { allLowercase, allUppercase } from './checks/letter-case.ts';
import { log } from './checks/log.ts';
import { modelWhitelist } from './checks/model-whitelist.ts';
import { notNull } from './checks/not-null.ts';
import { piiRedact } from './checks/pii-redact.ts';
import { regexMatch } from './checks/regex-match.ts';
import { regexReplace } from './checks/regex-replace.ts';
import { requiredMetadataKeys } from './checks/required-metadata-keys.ts';
import { sentenceCount } from './checks/sentence-count.ts';
import { validUrls } from './checks/valid-urls.ts';
import { webhook } from './checks/webhook.ts';
import { wordCount } from './checks/word-count.ts';

export const BUILT_IN_CHECKS: Readonly<Record<string, CheckDefinition>> = {
  'default.regexMatch': regexMatch,
  'default.wordCount': wordCount,
  'default.sentenceCount': sentenceCount,
  'default.characterCount': characterCount,
  'default.contains': contains,
  'default.endsWith': endsWith,
  'default.allUppercase': allUppercase,
  'default.allLowercase': allLowercase,
  'default.jsonSchema': jsonSchema,
  'default.jsonKeys': jsonKeys,
  'default.containsCode': containsCode,
  'default.validUrls': validUrls,
  'default.notNull': notNull,
  'default.modelWhitelist': modelWhitelist,
  'default.requiredMetadataKeys': requiredMetadataKeys,
  'default.allowedRequestTypes': allowedRequestTypes,
  'default.jwt': jwt,
  'default.webhook': webhook,
  'default.log': log,
  'default.regexReplace': regexReplace,
  'default.piiRedact': piiRedact,
};
