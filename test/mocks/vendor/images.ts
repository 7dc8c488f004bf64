// POST /v1/images/generations and /v1/images/edits (multipart: the images to edit and the prompt):
// URLs or base64 PNGs.
import type { MockContext } from './context.ts';
import { jsonObject, unixSeconds, vendorId } from './context.ts';
import { badRequest, sendJson } from './respond.ts';
import { optionalCount } from './reply-text.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';

/** A 1×1 transparent PNG. */
const PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const SIZES = new Set(['256x256', '512x512', '1024x1024', '1536x1024', '1024x1536', '1792x1024', '1024x1792', 'auto']);

export async function imageGenerations(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request. The vendor API expects a JSON payload.');
  if (typeof body.prompt !== 'string' || body.prompt === '') return badRequest(ctx, "Missing required parameter: 'prompt'.", 'prompt');
  const n = optionalCount(body.n);
  if (n === 'invalid' || n === 0 || (n !== null && n > 10)) return badRequest(ctx, 'n must be between 1 and 10.', 'n');
  const size = body.size ?? '1024x1024';
  if (typeof size !== 'string' || !SIZES.has(size)) return badRequest(ctx, `Invalid size: ${JSON.stringify(size)}.`, 'size');
  const format = body.response_format ?? 'url';
  if (format !== 'url' && format !== 'b64_json') return badRequest(ctx, "response_format must be 'url' or 'b64_json'.", 'response_format');
  const data = [];
  for (let i = 0; i < (n ?? 1); i++) {
    const revised_prompt = `[${ctx.label}] ${body.prompt}`;
    data.push(format === 'url' ? { url: `https://files.vendor.example/images/${vendorId('img-')}.png`, revised_prompt } : { b64_json: PIXEL_PNG_BASE64, revised_prompt });
  }
  // The token-billed image models say what they used (the prompt's text tokens in, the image's tokens out); DALL·E models bill per image and report nothing.
  const usage = typeof body.model === 'string' && TOKEN_BILLED.test(body.model) ? imageUsage(body.prompt, n ?? 1) : undefined;
  return sendJson(ctx, 200, { created: unixSeconds(), data, ...(usage === undefined ? {} : { usage }) });
}

/** Image models billed by tokens, whose answers carry `usage`. */
const TOKEN_BILLED = /^gpt-image/;
/** Output tokens of one 1024×1024 image at medium quality, as the service counts them. */
const IMAGE_TOKENS = 1056;

/** Input tokens the mock counts for each image an edit sends. */
const INPUT_IMAGE_TOKENS = 323;

function imageUsage(prompt: string, n: number, inputImages = 0): object {
  const text = Math.max(1, Math.ceil(prompt.length / 4));
  const images = INPUT_IMAGE_TOKENS * inputImages;
  const input = text + images;
  return { total_tokens: input + IMAGE_TOKENS * n, input_tokens: input, output_tokens: IMAGE_TOKENS * n, input_tokens_details: { text_tokens: text, image_tokens: images } };
}

/** POST /v1/images/edits: the images (`image`, or several as `image[]`) redrawn as the prompt says. */
export async function imageEdits(ctx: MockContext): Promise<void> {
  const boundary = boundaryOf(ctx.req.headers['content-type']);
  if (boundary === null) return badRequest(ctx, 'Expected a multipart/form-data request body.', 'image');
  const form = parseMultipart(ctx.record.bodyBytes, boundary);
  if (form === null) return badRequest(ctx, 'The multipart body could not be parsed.', 'image');
  const images = (form.fileCounts.image ?? 0) + (form.fileCounts['image[]'] ?? 0);
  if (images === 0) return badRequest(ctx, "Missing required parameter: 'image'.", 'image');
  const prompt = form.fields.prompt;
  if (prompt === undefined || prompt === '') return badRequest(ctx, "Missing required parameter: 'prompt'.", 'prompt');
  const n = optionalCount(form.fields.n === undefined ? undefined : Number(form.fields.n));
  if (n === 'invalid' || n === 0 || (n !== null && n > 10)) return badRequest(ctx, 'n must be between 1 and 10.', 'n');
  const model = form.fields.model ?? 'dall-e-2';
  const tokenBilled = TOKEN_BILLED.test(model);
  const data = [];
  for (let i = 0; i < (n ?? 1); i++) data.push(tokenBilled ? { b64_json: PIXEL_PNG_BASE64 } : { url: `https://files.vendor.example/images/${vendorId('img-')}.png` });
  return sendJson(ctx, 200, { created: unixSeconds(), data, ...(tokenBilled ? { usage: imageUsage(prompt, n ?? 1, images) } : {}) });
}
