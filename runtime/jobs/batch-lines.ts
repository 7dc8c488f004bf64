// The batch input format (one JSON request per line: custom_id, method, url, body) checked line by
// line, and the vendor's batch output format (one JSON result per line: id, custom_id, response,
// error). Uploads with purpose `batch` are checked when they arrive; a batch checks its input again
// against its own endpoint before it runs.
import { randomBytes } from 'node:crypto';
import { jsonErrorDetail } from '../../compiler/config/json-syntax-error.ts';
import { TimeSlice } from '../core/time-slice.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';
import { isJsonObject } from '../core/json-object.ts';

export const BATCH_ENDPOINTS: readonly string[] = ['/v1/chat/completions', '/v1/completions', '/v1/embeddings'];
/** The vendor's limit on requests per batch file. */
export const MAX_BATCH_LINES = 50_000;
const MAX_CUSTOM_ID = 512;
/** Errors a failed batch reports (the first ones, in line order). */
export const MAX_REPORTED_ERRORS = 100;

export interface BatchLine {
  /** Position among the requests, from 0: the line's place in the output. */
  index: number;
  /** Line number in the file, from 1 (blank lines count). */
  lineNumber: number;
  customId: string;
  body: Record<string, unknown>;
}

export interface BatchLineProblem {
  code: string;
  message: string;
  param: string | null;
  /** Line number in the file, from 1; null for the file as a whole. */
  line: number | null;
}

export interface ParsedBatchFile {
  lines: BatchLine[];
  /** At most MAX_REPORTED_ERRORS, in line order. */
  errors: BatchLineProblem[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks every line. `endpoint`: the batch's endpoint, which every `url` must equal; null at upload,
 * where any batch endpoint is accepted. Blank lines are skipped. In time slices: the event loop runs
 * between them.
 */
export async function parseBatchFile(content: Buffer, endpoint: string | null): Promise<ParsedBatchFile> {
  const slice = new TimeSlice();
  const lines: BatchLine[] = [];
  const errors: BatchLineProblem[] = [];
  const seen = new Set<string>();
  const problem = (line: number | null, code: string, param: string | null, message: string): void => {
    if (errors.length < MAX_REPORTED_ERRORS) errors.push({ code, message, param, line });
  };
  let start = 0;
  let lineNumber = 0;
  let requests = 0;
  while (start <= content.length) {
    await slice.pause();
    let end = content.indexOf(0x0a, start);
    if (end < 0) end = content.length;
    lineNumber++;
    const raw = content.subarray(start, end);
    start = end + 1;
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      problem(lineNumber, 'invalid_json', null, `Line ${lineNumber} is not valid UTF-8.`);
      continue;
    }
    if (text.trim() === '') continue;
    requests++;
    if (requests > MAX_BATCH_LINES) {
      problem(lineNumber, 'too_many_requests', null, `A batch file holds at most ${MAX_BATCH_LINES} requests.`);
      break;
    }
    const checked = checkLine(text, lineNumber, endpoint, seen);
    if ('code' in checked) problem(lineNumber, checked.code, checked.param, checked.message);
    else lines.push({ index: lines.length, lineNumber, customId: checked.customId, body: checked.body });
  }
  if (requests === 0) problem(null, 'empty_file', 'file', 'The batch file holds no requests.');
  return { lines, errors };
}

function checkLine(text: string, n: number, endpoint: string | null, seen: Set<string>): { customId: string; body: Record<string, unknown> } | Omit<BatchLineProblem, 'line'> {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    // Located in our words (the one scan config files use): V8's message quotes the text around it.
    return { code: 'invalid_json', param: null, message: `Line ${n} is not valid JSON${jsonErrorDetail(text)}.` };
  }
  if (!isJsonObject(value)) return { code: 'invalid_json', param: null, message: `Line ${n} must be a JSON object.` };
  const customId = value.custom_id;
  if (typeof customId !== 'string' || customId === '' || customId.length > MAX_CUSTOM_ID) {
    return { code: 'invalid_custom_id', param: 'custom_id', message: `Line ${n}: custom_id must be a string of 1 to ${MAX_CUSTOM_ID} characters.` };
  }
  if (seen.has(customId)) return { code: 'duplicate_custom_id', param: 'custom_id', message: `Line ${n}: custom_id ${JSON.stringify(customId)} is used by an earlier line.` };
  seen.add(customId);
  if (value.method !== 'POST') return { code: 'invalid_method', param: 'method', message: `Line ${n}: method must be "POST".` };
  const url = value.url;
  if (endpoint !== null && url !== endpoint) {
    return { code: 'mismatched_url', param: 'url', message: `Line ${n}: url must be the batch's endpoint ${endpoint}, not ${JSON.stringify(url)}.` };
  }
  if (typeof url !== 'string' || !BATCH_ENDPOINTS.includes(url)) {
    return { code: 'invalid_url', param: 'url', message: `Line ${n}: url must be one of ${BATCH_ENDPOINTS.join(', ')}.` };
  }
  const body = value.body;
  if (!isJsonObject(body)) return { code: 'invalid_body', param: 'body', message: `Line ${n}: body must be a JSON object.` };
  if (body.stream === true) return { code: 'invalid_body', param: 'body.stream', message: `Line ${n}: a batch request cannot stream.` };
  return { customId, body };
}

export interface BatchResponse {
  status_code: number;
  request_id: string;
  body: unknown;
}

/** One line of an output or error file, in the vendor's batch output format (without the newline). */
export function outputLine(customId: string, response: BatchResponse | null, error: { code: string; message: string } | null): string {
  return JSON.stringify({ id: `batch_req_${randomBytes(12).toString('hex')}`, custom_id: customId, response, error });
}
