// Prompt templates over HTTP, on SQLite and PostgreSQL: CRUD with versions, and the render endpoint
// exactly as SPEC §4.2 (variables required, hyperparameters at the root override the template's,
// never nested, a missing variable is a 400 naming it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { type ApiGateway, startApiGateway } from './harness.ts';

const GREETER = {
  id: 'greeter',
  name: 'Greeter',
  model: 'gpt-test',
  hyperparameters: { temperature: 0.2, max_tokens: 64, stop: ['\n\n'] },
  messages: [
    { role: 'system', content: 'You are {{persona}}.' },
    { role: 'user', content: 'Say hello to {{user.name}}{{#formal}}, formally{{/formal}}.', name: 'caller' },
  ],
  version_description: 'first draft',
};

describe.each(BACKENDS)('prompts API on %s', (backend) => {
  let api: ApiGateway;
  beforeAll(async () => {
    api = await startApiGateway(backend);
    expect((await api.call('POST', '/v1/prompts', { body: GREETER })).status).toBe(200);
  });
  afterAll(() => api?.close());

  it('creates version 1 and shows the variables the template reads', async () => {
    const res = await api.call('GET', '/v1/prompts/greeter');
    expect(res.schema).toBe('resources/prompt.json');
    expect(res.body).toMatchObject({
      object: 'prompt', id: 'greeter', name: 'Greeter', version: 1, latest_version: 1, model: 'gpt-test',
      hyperparameters: GREETER.hyperparameters, messages: GREETER.messages, variables: ['persona', 'user.name', 'formal'], version_description: 'first draft',
    });
    expect(api.controlPlane.prompts.resolve('greeter')?.variables).toEqual(['persona', 'user.name', 'formal']);
  });

  it('renders per SPEC §4.2: messages filled, template model and hyperparameters, root values override', async () => {
    const res = await api.call('POST', '/v1/prompts/greeter/render', { body: { variables: { persona: 'a pirate', user: { name: 'Ada' }, formal: true }, temperature: 0.9, stream: false } });
    expect(res.status).toBe(200);
    expect(res.schema).toBe('resources/rendered-prompt.json');
    expect(res.body).toEqual({
      success: true,
      data: {
        messages: [
          { role: 'system', content: 'You are a pirate.' },
          { role: 'user', content: 'Say hello to Ada, formally.', name: 'caller' },
        ],
        model: 'gpt-test',
        temperature: 0.9,
        max_tokens: 64,
        stop: ['\n\n'],
        stream: false,
      },
    });
  });

  it('answers a missing variable with 400 naming it (all of them)', async () => {
    const one = await api.call('POST', '/v1/prompts/greeter/render', { body: { variables: { persona: 'x' } } });
    expect(one.status).toBe(400);
    expect(one.body.error).toMatchObject({ code: 'missing_prompt_variable', param: 'variables.user.name', missing_variables: ['user.name'] });
    expect(one.body.error.message).toContain('"user.name"');
    const two = await api.call('POST', '/v1/prompts/greeter/render', { body: { variables: {} } });
    expect(two.body.error.missing_variables).toEqual(['persona', 'user.name']);
    // A section over a missing name is just false; null is a given (empty) value.
    const ok = await api.call('POST', '/v1/prompts/greeter/render', { body: { variables: { persona: null, user: { name: 'Bo' } } } });
    expect(ok.body.data.messages.map((m: { content: string }) => m.content)).toEqual(['You are .', 'Say hello to Bo.']);
  });

  it('requires variables, keeps hyperparameters at the root, and knows unknown prompts', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'invalid_request_body'],
      [{ variables: [] }, 'invalid_request_body'],
      [{ variables: {}, hyperparameters: { temperature: 1 } }, 'invalid_request_body'],
      [{ variables: {}, temperature: 'hot' }, 'invalid_request_body'],
      [{ variables: {}, messages: [] }, 'invalid_request_body'],
    ];
    for (const [body, code] of cases) {
      const res = await api.call('POST', '/v1/prompts/greeter/render', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe(code);
    }
    const unknown = await api.call('POST', '/v1/prompts/nope/render', { body: { variables: {} } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_not_found');
  });

  it('adds versions; get, render and list them by number; the latest is the default', async () => {
    await api.call('POST', '/v1/prompts', { body: { id: 'versions', name: 'v', messages: [{ role: 'user', content: 'v1 {{x}}' }] } });
    const v2 = await api.call('PUT', '/v1/prompts/versions', { body: { name: 'renamed', messages: [{ role: 'user', content: 'v2 {{y}}' }], model: 'm2', version_description: 'second' } });
    expect(v2.body).toMatchObject({ version: 2, latest_version: 2, name: 'renamed', model: 'm2', variables: ['y'] });
    expect((await api.call('GET', '/v1/prompts/versions?version=1')).body).toMatchObject({ version: 1, latest_version: 2, model: null, name: 'renamed', variables: ['x'] });
    expect((await api.call('GET', '/v1/prompts/versions?version=3')).status).toBe(404);
    expect((await api.call('GET', '/v1/prompts/versions?version=0')).body.error.code).toBe('invalid_query');

    expect((await api.call('POST', '/v1/prompts/versions/render', { body: { variables: { y: 'Y' } } })).body.data).toEqual({ messages: [{ role: 'user', content: 'v2 Y' }], model: 'm2' });
    expect((await api.call('POST', '/v1/prompts/versions@1/render', { body: { variables: { x: 'X' } } })).body.data).toEqual({ messages: [{ role: 'user', content: 'v1 X' }] });
    expect((await api.call('POST', '/v1/prompts/versions@9/render', { body: { variables: {} } })).status).toBe(404);

    const versions = await api.call('GET', '/v1/prompts/versions/versions');
    expect(versions.schema).toBe('resources/prompt-version-list.json');
    expect(versions.body.data.map((v: { version: number; description: string | null }) => [v.version, v.description])).toEqual([[1, null], [2, 'second']]);
    expect(versions.body.total).toBe(2);
    expect((await api.call('PUT', '/v1/prompts/absent', { body: { messages: [{ role: 'user', content: 'x' }] } })).status).toBe(404);
    expect((await api.call('GET', '/v1/prompts/absent/versions')).status).toBe(404);
  });

  it('refuses invalid templates and bodies, and taken IDs', async () => {
    const bad = await api.call('POST', '/v1/prompts', { body: { name: 'bad', messages: [{ role: 'user', content: 'ok' }, { role: 'user', content: 'Hi {{name' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_prompt_template', param: '/messages/1/content' });
    for (const body of [
      { name: 'x', messages: [] },
      { name: 'x', messages: [{ role: 'user' }] },
      { name: '', messages: [{ role: 'user', content: 'x' }] },
      { name: 'x', id: 'a@1', messages: [{ role: 'user', content: 'x' }] },
      { name: 'x', messages: [{ role: 'user', content: 'x' }], hyperparameters: { stream: true } },
      { name: 'x', messages: [{ role: 'user', content: 'x' }], hyperparameters: { temperature: 'warm' } },
    ]) {
      const res = await api.call('POST', '/v1/prompts', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    const taken = await api.call('POST', '/v1/prompts', { body: GREETER });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('resource_already_exists');
    const generated = await api.call('POST', '/v1/prompts', { body: { name: 'anon', messages: [{ role: 'user', content: 'x' }] } });
    expect(generated.body.id).toMatch(/^prompt-[0-9a-f]{16}$/);
  });

  it('lists with paging and deletes with every version', async () => {
    const all = (await api.call('GET', '/v1/prompts')).body;
    expect(all.total).toBe(all.data.length);
    expect(all.data[0].id).toBe('greeter');
    const page = (await api.call('GET', '/v1/prompts?page_size=1&current_page=1')).body;
    expect(page).toEqual({ object: 'list', data: [all.data[1]], total: all.total });
    await api.call('POST', '/v1/prompts', { body: { id: 'doomed', name: 'd', messages: [{ role: 'user', content: 'x' }] } });
    expect(api.controlPlane.prompts.resolve('doomed')).not.toBeNull();
    expect((await api.call('DELETE', '/v1/prompts/doomed')).body).toEqual({ id: 'doomed', object: 'prompt', deleted: true });
    expect(api.controlPlane.prompts.resolve('doomed')).toBeNull();
    expect((await api.call('GET', '/v1/prompts/doomed')).status).toBe(404);
    expect((await api.call('DELETE', '/v1/prompts/doomed')).status).toBe(404);
  });

  it('refuses a saved config that renders a prompt not stored, and keeps a prompt a saved config renders', async () => {
    const config = (promptId: string) => ({ provider: 'openai', api_key: 'sk-test', prompt_id: promptId });
    for (const missing of ['no-such-prompt', 'greeter@99']) {
      const refused = await api.call('POST', '/v1/configs', { body: { id: 'renders-missing', config: config(missing) } });
      expect(refused.status, missing).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'unknown_prompt_id', param: '/config' });
      expect(refused.body.error.message).toContain(`"${missing}"`);
    }
    expect((await api.call('GET', '/v1/configs/renders-missing')).status).toBe(404);
    await api.call('POST', '/v1/prompts', { body: { id: 'kept', name: 'k', messages: [{ role: 'user', content: 'x' }] } });
    const nested = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'k' }, config('kept@1')] };
    expect((await api.call('POST', '/v1/configs', { body: { id: 'renders-kept', config: nested } })).status).toBe(200);
    const updated = await api.call('PUT', '/v1/configs/renders-kept', { body: { config: { ...nested, targets: [nested.targets[0], config('kept@2')] } } });
    expect(updated.body.error).toMatchObject({ code: 'unknown_prompt_id' });
    const inUse = await api.call('DELETE', '/v1/prompts/kept');
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'prompt_in_use', param: 'promptId', configs: ['renders-kept'] });
    expect((await api.call('GET', '/v1/prompts/kept')).status).toBe(200);
    expect((await api.call('DELETE', '/v1/configs/renders-kept')).status).toBe(200);
    expect((await api.call('DELETE', '/v1/prompts/kept')).status).toBe(200);
  });
});
