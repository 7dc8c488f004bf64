// `/v1/virtual-keys`: create, list, retrieve, update and delete stored provider credentials (admin
// scope). The credential and secret options are sealed before they reach the store and are never
// returned, not even by the call that created them: responses name which secrets a key holds.
import { canonicalProvider, optionOfOtherFamily, providerEntry } from '../../../compiler/config/providers.ts';
import { unreadOptions } from '../../../compiler/config/unread-options.ts';
import { refusedWithoutLookup } from '../../providers/host-policy.ts';
import { randomBytes } from 'node:crypto';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { serviceAccountOf } from '../../providers/cloudb/token.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import type { GatewayStore } from '../../store/open-store.ts';
import { UniqueViolationError } from '../../store/sql/sql-database.ts';
import type { VirtualKeyInput, VirtualKeyRecord } from '../../store/virtual-key-store.ts';
import { deletedBody, listBody, notFound, pageOf, pathParam, requireAdmin, sendOk } from '../http.ts';
import { badField, checkOption, checkSentText, keyHint, OPTION_FIELDS, SECRET_FIELDS, SLUG } from './fields.ts';
import type { MasterKey } from '../../store/master-key.ts';
import type { ConfigCatalog } from '../configs/config-catalog.ts';
import { open, seal } from '../../store/secret-box.ts';

export const VIRTUAL_KEY_OBJECT = 'virtual_key';
const PARAM = 'virtualKeyId';

export interface VirtualKeyWire {
  id: string;
  object: 'virtual_key';
  name: string | null;
  slug: string | null;
  provider: string;
  options: Record<string, unknown>;
  /** Names of the secrets the key holds; their values are never returned. */
  secrets: string[];
  key_hint: string | null;
  version: number;
  created_at: string;
  last_updated_at: string;
}

export function virtualKeyWire(record: VirtualKeyRecord): VirtualKeyWire {
  return {
    id: record.id,
    object: VIRTUAL_KEY_OBJECT,
    name: record.name,
    slug: record.slug,
    provider: record.provider,
    options: record.options,
    secrets: record.secretNames,
    key_hint: record.keyHint,
    version: record.version,
    created_at: record.createdAt,
    last_updated_at: record.lastUpdatedAt,
  };
}

/** The fields of a stored key in the clear: what the body sets over what the record had. */
interface Fields {
  name: string | null;
  slug: string | null;
  provider: string;
  clear: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/** `configs`: the saved configs, which a key they call must outlive (null: not checked, as in tests without a control plane). */
export function virtualKeyHandlers(store: GatewayStore, master: MasterKey, providers: ProviderRegistry, configs: ConfigCatalog | null = null): Record<string, Handler> {
  function refuseInUse(users: string[], what: string): void {
    if (users.length > 0) throw new GatewayError('virtual_key_in_use', `Saved configs call ${what}: ${users.join(', ')}. Change them first; otherwise every request through them would fail.`, PARAM, { configs: users });
  }

  function input(id: string, fields: Fields): VirtualKeyInput {
    const apiKey = typeof fields.secrets.api_key === 'string' ? fields.secrets.api_key : null;
    return {
      name: fields.name,
      slug: fields.slug,
      provider: fields.provider,
      options: fields.clear,
      sealed: seal(master, id, fields.secrets),
      keyHint: keyHint(apiKey),
      secretNames: Object.keys(fields.secrets).sort(),
    };
  }

  async function write<T>(work: () => Promise<T>, slug: string | null): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UniqueViolationError) throw new GatewayError('resource_already_exists', `The slug "${slug}" already names another virtual key.`, '/slug');
      throw error;
    }
  }

  return {
    'virtualKeys.create': async (ctx) => {
      requireAdmin(ctx);
      const body = await bodyObject(ctx);
      if (typeof body.provider !== 'string') throw badField('/provider', 'provider is required: the provider this key is a credential for.');
      const fields = applyBody({ name: null, slug: null, provider: body.provider, clear: {}, secrets: {} }, body, providers);
      const id = `vk-${randomBytes(9).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, '0')}`;
      const record = await write(() => store.virtualKeys.create(id, input(id, fields)), fields.slug);
      await store.changes.refresh();
      sendOk(ctx, virtualKeyWire(record));
    },

    'virtualKeys.list': async (ctx) => {
      requireAdmin(ctx);
      const page = await store.virtualKeys.list(pageOf(ctx.query));
      sendOk(ctx, listBody(page.items.map(virtualKeyWire), page.total));
    },

    'virtualKeys.retrieve': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, PARAM);
      const record = await store.virtualKeys.get(id);
      if (record === null) throw notFound('virtual key', id, PARAM);
      sendOk(ctx, virtualKeyWire(record));
    },

    'virtualKeys.update': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, PARAM);
      const body = await bodyObject(ctx);
      const current = await store.virtualKeys.get(id);
      if (current === null) throw notFound('virtual key', id, PARAM);
      const fields = applyBody(
        { name: current.name, slug: current.slug, provider: current.provider, clear: { ...current.options }, secrets: open(master, id, current.sealed) },
        body,
        providers,
      );
      if (current.slug !== null && fields.slug !== current.slug) refuseInUse(configs?.configsUsingVirtualKey(null, current.slug) ?? [], `"@${current.slug}"`);
      const record = await write(() => store.virtualKeys.update(id, input(id, fields)), fields.slug);
      if (record === null) throw notFound('virtual key', id, PARAM);
      await store.changes.refresh();
      sendOk(ctx, virtualKeyWire(record));
    },

    'virtualKeys.delete': async (ctx) => {
      requireAdmin(ctx);
      const id = pathParam(ctx, PARAM);
      const current = await store.virtualKeys.get(id);
      if (current === null) throw notFound('virtual key', id, PARAM);
      refuseInUse(configs?.configsUsingVirtualKey(id, current.slug) ?? [], `the virtual key "${id}"${current.slug === null ? '' : ` (as "@${current.slug}")`}`);
      if (!(await store.virtualKeys.delete(id))) throw notFound('virtual key', id, PARAM);
      await store.changes.refresh();
      sendOk(ctx, deletedBody(id, VIRTUAL_KEY_OBJECT));
    },
  };
}

async function bodyObject(ctx: RequestContext): Promise<Record<string, unknown>> {
  const body = await ctx.json();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badField('', 'The body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** The body's fields over `fields`: null removes an optional field; unknown keys are refused. */
function applyBody(fields: Fields, body: Record<string, unknown>, providers: ProviderRegistry): Fields {
  const next: Fields = { ...fields, clear: { ...fields.clear }, secrets: { ...fields.secrets } };
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'provider':
        if (typeof value !== 'string' || value.startsWith('@') || !providers.has(value)) {
          throw badField('/provider', `provider must be a provider name this gateway knows (${providers.names().join(', ')}).`);
        }
        next.provider = canonicalProvider(value);
        break;
      case 'name':
        if (value !== null && (typeof value !== 'string' || value.length > 255)) throw badField('/name', 'name must be a string of at most 255 characters, or null.');
        next.name = value as string | null;
        break;
      case 'slug':
        if (value !== null && (typeof value !== 'string' || !SLUG.test(value))) throw badField('/slug', 'slug must be 1–63 lower-case letters, digits, "-" or "_", starting with a letter or digit; it is used as "@slug".');
        next.slug = value as string | null;
        break;
      case 'api_key':
        if (value === null) delete next.secrets.api_key;
        else if (typeof value === 'string' && value !== '') {
          checkSentText('api_key', value);
          next.secrets.api_key = value;
        } else throw badField('/api_key', 'api_key must be a non-empty string, or null to remove it.');
        break;
      default: {
        if (!Object.hasOwn(OPTION_FIELDS, key)) throw badField(`/${key}`, `Unknown field "${key}": a virtual key holds provider, api_key, name, slug and provider options.`);
        const into = SECRET_FIELDS.has(key) ? next.secrets : next.clear;
        if (value === null) {
          delete into[key];
          break;
        }
        // Said before the value's own checks: what it holds does not matter where it does nothing.
        refuseOtherFamilies(typeof body.provider === 'string' && providers.has(body.provider) ? body.provider : next.provider, { [key]: value });
        checkOption(key, value);
        if (key === 'cloudb_service_account_json') serviceAccountOf(value, 'cloudb');
        if (key === 'custom_host') checkUrl(value as string);
        into[key] = value;
      }
    }
  }
  // After the loop: the body may name the provider after its options, and an update may change the
  // provider under options stored before.
  refuseOtherFamilies(next.provider, { ...next.clear, ...next.secrets });
  refuseUnreadOptions(next.provider, { ...next.clear, ...next.secrets });
  return next;
}

/**
 * An option the key's provider never reads beside its others (cloud A's `resource_name` beside
 * `clouda_resource_name`, an `api_key` beside cloud B's service account): refused, as a config's is
 * warned. Only what no option a config adds beside the key can make read (compiler/config/unread-options.ts).
 */
function refuseUnreadOptions(provider: string, options: Readonly<Record<string, unknown>>): void {
  const family = providerEntry(provider)?.family;
  if (family === undefined) return;
  const [unread] = unreadOptions(family, options, typeof options.custom_host === 'string', true);
  if (unread === undefined) return;
  const [key, why] = unread;
  throw badField(`/${key}`, `${key} would have no effect: ${why}. Remove it (null removes a stored one).`);
}

/**
 * An option only another family's adapter reads (`cloudb_region` on a vendor key) would be stored and
 * never used: refused, on create and when an update leaves one beside a new provider.
 */
function refuseOtherFamilies(provider: string, options: Readonly<Record<string, unknown>>): void {
  const other = optionOfOtherFamily(options, provider);
  if (other === null) return;
  throw badField(`/${other.key}`, `Only ${other.family} providers read ${other.key}, and this key's provider, "${provider}", is of the ${providerEntry(provider)!.family} family: it would have no effect. Remove it (null removes a stored one).`);
}

function checkUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badField('/custom_host', 'custom_host must be an http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badField('/custom_host', 'custom_host must be an http(s) URL.');
  // Refused when saved, not only when used: what the URL alone shows (a metadata address or name).
  const refused = refusedWithoutLookup(url);
  if (refused !== null) throw new GatewayError('custom_host_not_allowed', `The custom host ${url.host} is not allowed: ${refused}.`, '/custom_host');
}
