// A request body read as JSON, the one way (the HTTP context, the prompt stage): a UTF-8 byte order
// mark is legal in a body but not in JSON text, so it is skipped; a body that does not parse is 400
// `invalid_json`, located without quoting the body (compiler/config/json-syntax-error.ts).
import { jsonErrorDetail } from '../../compiler/config/json-syntax-error.ts';
import { GatewayError } from './errors.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new GatewayError('invalid_json', 'The request body is not valid JSON: the body is empty.');
  const start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  const text = body.toString('utf8', start);
  try {
    return parseJson(text);
  } catch {
    throw new GatewayError('invalid_json', `The request body is not valid JSON${jsonErrorDetail(text)}.`);
  }
}
