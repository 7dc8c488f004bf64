// A config's `prompt_id` on POST /v1/chat/completions: before routing, the template is rendered into
// the request. The body then reads like a render body: `variables` fill the template, root values
// (model, temperature, stream, …) override the template's, and any `messages` the caller sends are
// appended after the template's. Rendering happens once, before the router picks a target, so a
// config whose targets name different prompts cannot be routed (400 `ambiguous_prompt_id`).
import { checkConfig, type RoutePlan } from '../../../compiler/config/index.ts';
import type { PlanNode } from '../../../compiler/config/route-plan.ts';
import * as validators from '../../../generated/validators.js';
import { CONFIG_HEADER } from '../../core/gateway-headers.ts';
import type { PromptHook } from '../../inference/handlers.ts';
import { LruMap } from '../../inference/lru.ts';
import { GatewayError } from '../../core/errors.ts';
import { type GeneratedValidator, validateBody } from '../../server/validate.ts';
import type { PromptCatalog } from './prompt-catalog.ts';
import { renderChatRequest } from './template.ts';

type Binding = { kind: 'none' } | { kind: 'one'; promptId: string } | { kind: 'many'; promptIds: string[] };

const NONE: Binding = { kind: 'none' };
const CHAT_OPERATION = 'createChatCompletion';
const chatValidator = validators.validateChatCompletionCreate as unknown as GeneratedValidator;

/** `planOf` gives the plan of a saved config ID (files and API), or null. */
export function createPromptHook(planOf: (configId: string) => RoutePlan | null, prompts: PromptCatalog, inlineCacheSize = 1000): PromptHook {
  const byPlan = new WeakMap<RoutePlan, Binding>();
  const inline = new LruMap<string, Binding>(inlineCacheSize);

  function bindingOfPlan(plan: RoutePlan): Binding {
    let binding = byPlan.get(plan);
    if (binding === undefined) byPlan.set(plan, (binding = bindingOf(plan.root)));
    return binding;
  }

  function bindingFor(configId: string, header: unknown): Binding {
    const saved = planOf(configId);
    if (saved !== null) return bindingOfPlan(saved);
    if (!configId.startsWith('inline:') || typeof header !== 'string') return NONE;
    let binding = inline.get(configId);
    if (binding === undefined) {
      // The resolver compiled this inline config a moment ago (it is cached there); this is once per distinct config.
      let parsed: unknown;
      try {
        parsed = JSON.parse(header);
      } catch {
        return NONE;
      }
      const result = checkConfig(parsed, configId);
      binding = result.ok ? bindingOf(result.plan.root) : NONE;
      inline.set(configId, binding);
    }
    return binding;
  }

  return async (ctx, configId, rawBody) => {
    if (ctx.route?.operationId !== CHAT_OPERATION) return null;
    const binding = bindingFor(configId, ctx.headers[CONFIG_HEADER]);
    if (binding.kind === 'none') return null;
    if (binding.kind === 'many') {
      throw new GatewayError('ambiguous_prompt_id', `The config's targets name different prompts (${binding.promptIds.join(', ')}); the prompt is rendered before routing, so a config can use one.`, CONFIG_HEADER);
    }
    const compiled = prompts.resolve(binding.promptId);
    if (compiled === null) throw new GatewayError('unknown_prompt_id', `The config's prompt_id "${binding.promptId}" names no stored prompt (version).`, 'prompt_id');
    const { variables, messages, ...rest } = parseObject(rawBody);
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
    return { params, rawBody: Buffer.from(text) };
  };
}

/** The prompt IDs the plan's leaves carry (inherited already): none, one, or several. */
function bindingOf(root: PlanNode): Binding {
  const ids = new Set<string>();
  const walk = (node: PlanNode): void => {
    if (node.kind === 'leaf') {
      if (node.promptId !== null) ids.add(node.promptId);
    } else node.targets.forEach(walk);
  };
  walk(root);
  if (ids.size === 0) return NONE;
  const [first] = ids;
  return ids.size === 1 ? { kind: 'one', promptId: first } : { kind: 'many', promptIds: [...ids] };
}

function parseObject(rawBody: Buffer): Record<string, unknown> {
  if (rawBody.length === 0) return {};
  let value: unknown;
  try {
    const start = rawBody.length >= 3 && rawBody[0] === 0xef && rawBody[1] === 0xbb && rawBody[2] === 0xbf ? 3 : 0;
    value = JSON.parse(rawBody.toString('utf8', start));
  } catch (error) {
    throw new GatewayError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
  if (!isPlainObject(value)) throw new GatewayError('invalid_request_body', 'Invalid request body: the body must be a JSON object.', '');
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
