// `/v1/prompts`: prompt templates with versions (admin scope), and POST /v1/prompts/{promptId}/render
// (any key, SPEC §4.2): `variables` fill the mustache template, root-level hyperparameters override
// the template's, and `data` is a chat-completion body that /v1/chat/completions accepts unchanged.
import { randomBytes } from 'node:crypto';
import type { Prompt, PromptCreate, PromptList, PromptRender, PromptUpdate, PromptVersionList, RenderedPrompt } from '../../../generated/types.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import type { PromptRecord, PromptTemplate, PromptVersion } from '../../store/prompt-store.ts';
import { UniqueViolationError } from '../../store/sql/sql-database.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { callerOf, deletedBody, listBody, notFound, pageOf, pathParam, requireAdmin, sendOk } from '../http.ts';
import { parsePromptRef } from './prompt-ref.ts';
import type { ConfigCatalog } from '../configs/config-catalog.ts';
import { compileTemplate, renderChatRequest } from '../../pipeline/prompt/template.ts';

/** `configs`: the saved configs, which a prompt they render must outlive. */
export function promptHandlers(store: GatewayStore, configs: ConfigCatalog): Record<string, Handler> {
  return {
    'prompts.create': async (ctx) => {
      requireAdmin(ctx);
      const body = (await ctx.json()) as PromptCreate;
      const id = body.id ?? `prompt-${randomBytes(8).toString('hex')}`;
      const template = templateOf(body);
      compileTemplate(template);
      let record: PromptRecord;
      try {
        record = await store.prompts.create({ id, name: body.name, template, description: body.version_description ?? null });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new GatewayError('resource_already_exists', `A prompt with the ID "${id}" already exists; PUT /v1/prompts/${id} adds a version.`, '/id');
        throw error;
      }
      await store.changes.refresh();
      sendOk(ctx, promptWire(record));
    },

    'prompts.list': async (ctx) => {
      requireAdmin(ctx);
      const page = await store.prompts.list(pageOf(ctx.query));
      sendOk(ctx, listBody(page.items.map(promptWire), page.total) satisfies PromptList);
    },

    'prompts.retrieve': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'promptId');
      const version = ctx.query.version as number | undefined;
      const record = await store.prompts.get(id, version);
      if (record === null) throw notFound(version === undefined ? 'prompt' : `version ${version} of a prompt`, id, 'promptId');
      sendOk(ctx, promptWire(record));
    },

    'prompts.update': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'promptId');
      const body = (await ctx.json()) as PromptUpdate;
      const template = templateOf(body);
      compileTemplate(template);
      const record = await store.prompts.addVersion(id, { name: body.name, template, description: body.version_description ?? null });
      if (record === null) throw notFound('prompt', id, 'promptId');
      await store.changes.refresh();
      sendOk(ctx, promptWire(record));
    },

    'prompts.delete': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'promptId');
      const users = configs.configsUsingPrompt(id);
      if (users.length > 0) throw new GatewayError('prompt_in_use', `Saved configs render the prompt "${id}": ${users.join(', ')}. Remove their prompt_id first; deleting it would fail every request through them.`, 'promptId', { configs: users });
      if (!(await store.prompts.delete(id))) throw notFound('prompt', id, 'promptId');
      await store.changes.refresh();
      sendOk(ctx, deletedBody(id, 'prompt'));
    },

    'prompts.listVersions': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'promptId');
      const versions = await store.prompts.versions(id);
      if (versions === null) throw notFound('prompt', id, 'promptId');
      sendOk(ctx, listBody(versions.map((v) => versionWire(id, v)), versions.length) satisfies PromptVersionList);
    },

    // Render reads the store, not the in-memory catalog: it is a control-plane call (SPEC §1) and
    // must see a version saved through another process a moment ago.
    'prompts.render': async (ctx) => {
      callerOf(ctx);
      const ref = parsePromptRef(pathParam(ctx, 'promptId'));
      const { variables, ...hyperparameters } = (await ctx.json()) as PromptRender;
      const record = await store.prompts.get(ref.id, ref.version);
      if (record === null) throw notFound(ref.version === undefined ? 'prompt' : `version ${ref.version} of a prompt`, ref.id, 'promptId');
      const data = renderChatRequest(compileTemplate(record.template), variables, hyperparameters);
      sendOk(ctx, { success: true, data } satisfies RenderedPrompt);
    },
  };
}

function templateOf(body: PromptCreate | PromptUpdate): PromptTemplate {
  return { messages: body.messages, model: body.model ?? null, hyperparameters: body.hyperparameters ?? {} };
}

export function promptWire(record: PromptRecord): Prompt {
  return {
    object: 'prompt',
    id: record.id,
    name: record.name,
    version: record.version,
    latest_version: record.latestVersion,
    model: record.template.model,
    messages: record.template.messages,
    hyperparameters: record.template.hyperparameters,
    variables: compileTemplate(record.template).variables,
    version_description: record.versionDescription,
    created_at: record.createdAt,
    last_updated_at: record.lastUpdatedAt,
  };
}

function versionWire(promptId: string, version: PromptVersion): PromptVersionList['data'][number] {
  return {
    object: 'prompt_version',
    prompt_id: promptId,
    version: version.version,
    model: version.template.model,
    messages: version.template.messages,
    hyperparameters: version.template.hyperparameters,
    variables: compileTemplate(version.template).variables,
    description: version.description,
    created_at: version.createdAt,
  };
}
