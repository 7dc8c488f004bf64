// A stored prompt template as mustache: checked when saved, rendered into a chat-completion request
// body (SPEC §4.2 `data`) when used.
import type { PromptMessage, PromptTemplate } from '../../store/prompt-store.ts';
import { GatewayError } from '../../core/errors.ts';
import { parseTemplate, renderNodes, RenderTooLargeError, type TemplateNode, TemplateSyntaxError, templateVariables } from './mustache.ts';

/** A template with every message parsed once. */
export interface CompiledTemplate {
  template: PromptTemplate;
  messages: Array<{ message: PromptMessage; nodes: TemplateNode[] }>;
  variables: string[];
}

/** Parses every message; 400 `invalid_prompt_template` naming the message and offset otherwise. */
export function compileTemplate(template: PromptTemplate, pointerBase = '/messages'): CompiledTemplate {
  const messages = template.messages.map((message, index) => {
    try {
      return { message, nodes: parseTemplate(message.content) };
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      const pointer = `${pointerBase}/${index}/content`;
      throw new GatewayError('invalid_prompt_template', `Message ${index} of the template is not valid mustache: ${error.message}`, pointer);
    }
  });
  const variables: string[] = [];
  for (const { nodes } of messages) templateVariables(nodes, variables);
  return { template, messages, variables };
}

/** Fills the template; 400 `missing_prompt_variable` naming every variable that was not given. */
export function renderMessages(compiled: CompiledTemplate, variables: Record<string, unknown>): PromptMessage[] {
  const missing = new Set<string>();
  let rendered: PromptMessage[];
  try {
    rendered = compiled.messages.map(({ message, nodes }) => ({ ...message, content: renderNodes(nodes, variables, missing) }));
  } catch (error) {
    if (error instanceof RenderTooLargeError) throw new GatewayError('invalid_request_body', error.message, '/variables');
    // JSON.stringify of a variable nested deeper than the stack allows (JSON.parse accepts such input).
    if (error instanceof RangeError) throw new GatewayError('invalid_request_body', 'Invalid request body: a variable is nested too deeply to insert into the prompt.', '/variables');
    throw error;
  }
  if (missing.size > 0) {
    const names = [...missing];
    throw new GatewayError(
      'missing_prompt_variable',
      `The prompt template needs ${names.length === 1 ? 'the variable' : 'the variables'} ${names.map((n) => JSON.stringify(n)).join(', ')}, which ${names.length === 1 ? 'was' : 'were'} not given in "variables".`,
      `variables.${names[0]}`,
      { missing_variables: names },
    );
  }
  return rendered;
}

/**
 * The chat-completion request body: the rendered messages, the template's model and hyperparameters,
 * then the caller's own root-level values (hyperparameters, `stream`, …), which win. `messages` is
 * always the rendered list; callers that add messages of their own append them.
 */
export function renderChatRequest(compiled: CompiledTemplate, variables: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const messages = renderMessages(compiled, variables);
  const { template } = compiled;
  const { messages: _ignored, ...rest } = overrides;
  return { messages, ...(template.model === null ? {} : { model: template.model }), ...template.hyperparameters, ...rest };
}
