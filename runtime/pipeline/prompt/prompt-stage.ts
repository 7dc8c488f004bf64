// A config's `prompt_id` on chat completions: before routing, the template is rendered into the
// request. The body then reads like a render body: `variables` fill the template, root values
// (model, temperature, stream, …) override the template's, and any `messages` the caller sends are
// appended after the template's. Rendering happens once, before the router picks a target, so a
// config whose targets name different prompts cannot be routed (400 `ambiguous_prompt_id`): the
// stage says so when the router is built and answers every chat request with it.
import * as validators from '../../../generated/validators.js';
import { GatewayError } from '../../core/errors.ts';
import { CONFIG_HEADER } from '../../core/gateway-headers.ts';
import type { PlanNode } from '../../core/plan.ts';
import { type GeneratedValidator, validateBody } from '../../core/validate.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage, StageFn } from '../stage.ts';
import type { PromptSource } from './prompt-source.ts';
import { renderChatRequest } from './template.ts';
import { parseJsonBody } from '../../core/json-body.ts';

const CHAT_OPERATION = 'createChatCompletion';
const chatValidator = validators.validateChatCompletionCreate as unknown as GeneratedValidator;

export const promptStage: Stage = {
  name: 'prompt',
  phase: 'request',
  readsBody: (node) => node.kind === 'leaf' && node.promptId !== null,
  prepare(node, services) {
    const ids = promptIds(node);
    if (ids.length === 0) return null;
    if (ids.length > 1) {
      const ambiguous = new GatewayError('ambiguous_prompt_id', `The config's targets name different prompts (${ids.join(', ')}); the prompt is rendered before routing, so a config can use one.`, CONFIG_HEADER);
      const fn: StageFn = (x, next) => {
        if (x.operationId !== CHAT_OPERATION) return next(x);
        return Promise.reject(ambiguous);
      };
      return fn;
    }
    const promptId = ids[0];
    const prompts = services.prompts;
    const fn: StageFn = (x, next) => {
      if (x.operationId !== CHAT_OPERATION || x.rawBody === null) return next(x);
      render(x, promptId, prompts);
      return next(x);
    };
    return fn;
  },
};

function render(x: Exchange, promptId: string, prompts: PromptSource): void {
  const compiled = prompts.resolve(promptId);
  if (compiled === null) throw new GatewayError('unknown_prompt_id', `The config's prompt_id "${promptId}" names no stored prompt (version).`, 'prompt_id');
  const { variables, messages, ...rest } = parseObject(x.rawBody!);
  if (variables !== undefined && !isPlainObject(variables)) throw new GatewayError('invalid_request_body', 'Invalid request body: /variables must be an object.', '/variables');
  if (messages !== undefined && !Array.isArray(messages)) throw new GatewayError('invalid_request_body', 'Invalid request body: /messages must be an array.', '/messages');
  const params = renderChatRequest(compiled, (variables as Record<string, unknown> | undefined) ?? {}, rest);
  if (messages !== undefined) params.messages = [...(params.messages as unknown[]), ...messages];
  validateBody(chatValidator, params);
  let text: string;
  try {
    text = JSON.stringify(params);
  } catch {
    throw new GatewayError('invalid_request_body', 'Invalid request body: it is nested too deeply to forward.', '');
  }
  x.params = params;
  x.rawBody = Buffer.from(text);
}

/** The prompt IDs the plan's leaves carry (inherited already), each once. */
function promptIds(root: PlanNode): string[] {
  const ids = new Set<string>();
  const walk = (node: PlanNode): void => {
    if (node.kind === 'leaf') {
      if (node.promptId !== null) ids.add(node.promptId);
    } else node.targets.forEach(walk);
  };
  walk(root);
  return [...ids];
}

function parseObject(rawBody: Buffer): Record<string, unknown> {
  if (rawBody.length === 0) return {};
  const value = parseJsonBody(rawBody);
  if (!isPlainObject(value)) throw new GatewayError('invalid_request_body', 'Invalid request body: the body must be a JSON object.', '');
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
