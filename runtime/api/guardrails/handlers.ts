// `/v1/guardrails`: named guardrails over the API (admin scope). A guardrail's checks are checked as a
// config's are (400 `invalid_guardrail` with every error otherwise). After a write the change feed
// tells every process, which compiles again the configs that name the guardrail. File guardrails
// (the guardrails folder) are listed too and are read-only; one a saved config names cannot be deleted.
import { randomBytes } from 'node:crypto';
import { checkGuardrailValue, type GuardrailFile } from '../../../compiler/config/guardrail-files.ts';
import type { NamedGuardrail } from '../../../compiler/config/guardrail-lookup.ts';
import type { Guardrail, GuardrailCreate, GuardrailList, GuardrailUpdate } from '../../../generated/types.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import type { StoredGuardrailRecord } from '../../store/guardrail-store.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import { UniqueViolationError } from '../../store/sql/sql-database.ts';
import type { ConfigCatalog } from '../configs/config-catalog.ts';
import { deletedBody, filesThenStored, listBody, notFound, pageOf, pathParam, requireAdmin, sendOk } from '../http.ts';
import type { GuardrailCatalog } from './guardrail-catalog.ts';

export function guardrailHandlers(store: GatewayStore, catalog: GuardrailCatalog, configs: ConfigCatalog): Record<string, Handler> {
  function notFromFile(id: string): void {
    if (catalog.file(id) !== undefined) throw new GatewayError('guardrail_read_only', `The guardrail "${id}" comes from the guardrails folder, which wins over the API; change the file instead.`, 'guardrailId');
  }

  return {
    'guardrails.create': async (ctx) => {
      requireAdmin(ctx);
      const { id: given, ...body } = (await ctx.json()) as GuardrailCreate;
      const id = given ?? `gr-${randomBytes(8).toString('hex')}`;
      if (catalog.file(id) !== undefined) throw new GatewayError('resource_already_exists', `The ID "${id}" belongs to a guardrail from the guardrails folder.`, '/id');
      const { name, guardrail } = checkedOrThrow(body);
      let record: StoredGuardrailRecord;
      try {
        record = await store.guardrails.create({ id, name, guardrail });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new GatewayError('resource_already_exists', `A guardrail with the ID "${id}" already exists; PUT /v1/guardrails/${id} replaces it.`, '/id');
        throw error;
      }
      await store.changes.refresh();
      sendOk(ctx, storedWire(record));
    },

    'guardrails.list': async (ctx) => {
      requireAdmin(ctx);
      const page = await filesThenStored(catalog.files(), pageOf(ctx.query), (p, options) => store.guardrails.list(p, options));
      sendOk(ctx, listBody([...page.files.map(fileWire), ...page.stored.map(storedWire)], page.total) satisfies GuardrailList);
    },

    'guardrails.retrieve': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'guardrailId');
      const file = catalog.file(id);
      if (file !== undefined) return sendOk(ctx, fileWire(file));
      const record = await store.guardrails.get(id);
      if (record === null) throw notFound('guardrail', id, 'guardrailId');
      sendOk(ctx, storedWire(record));
    },

    'guardrails.update': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'guardrailId');
      notFromFile(id);
      const body = (await ctx.json()) as GuardrailUpdate;
      const { name, guardrail } = checkedOrThrow(body);
      const record = await store.guardrails.update(id, { guardrail, ...('name' in body ? { name } : {}) });
      if (record === null) throw notFound('guardrail', id, 'guardrailId');
      await store.changes.refresh();
      sendOk(ctx, storedWire(record));
    },

    'guardrails.delete': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, 'guardrailId');
      notFromFile(id);
      const users = configs.configsNaming(id);
      if (users.length > 0) throw new GatewayError('guardrail_in_use', `Saved configs name the guardrail "${id}": ${users.join(', ')}. Remove it from them first; deleting it would leave them unguarded.`, 'guardrailId', { configs: users });
      if (!(await store.guardrails.delete(id))) throw notFound('guardrail', id, 'guardrailId');
      await store.changes.refresh();
      sendOk(ctx, deletedBody(id, 'guardrail'));
    },
  };
}

/** 400 `invalid_guardrail` carrying every error (code, pointer, message, hint). */
function checkedOrThrow(body: GuardrailUpdate): { name: string | null; guardrail: NamedGuardrail } {
  const checked = checkGuardrailValue(body);
  if (checked.ok) return checked;
  const first = checked.errors[0];
  const more = checked.errors.length > 1 ? ` (and ${checked.errors.length - 1} more)` : '';
  throw new GatewayError('invalid_guardrail', `The guardrail is not valid: ${first.message}${more}`, first.pointer || null, {
    errors: checked.errors.map(({ code, pointer, message, hint }) => ({ code, pointer, message, ...(hint ? { hint } : {}) })),
  });
}

function wire(id: string, name: string | null, source: 'api' | 'file', guardrail: NamedGuardrail, version: number, createdAt: string, lastUpdatedAt: string): Guardrail {
  return {
    object: 'guardrail',
    id,
    name,
    source,
    checks: guardrail.checks,
    deny: guardrail.deny === true,
    async: guardrail.async === true,
    on_fail: (guardrail.on_fail as Guardrail['on_fail'] | undefined) ?? null,
    on_success: (guardrail.on_success as Guardrail['on_success'] | undefined) ?? null,
    version,
    created_at: createdAt,
    last_updated_at: lastUpdatedAt,
  };
}

function storedWire(record: StoredGuardrailRecord): Guardrail {
  return wire(record.id, record.name, 'api', record.guardrail, record.version, record.createdAt, record.lastUpdatedAt);
}

function fileWire(file: GuardrailFile): Guardrail {
  return wire(file.id, file.name, 'file', file.guardrail, 1, file.modifiedAt, file.modifiedAt);
}
