// Files end to end with the official SDK, on SQLite and PostgreSQL: uploads forwarded to a provider
// with a files API and kept by the gateway otherwise, JSONL checked line by line for batch files,
// the size limit's 413, list/get/content/delete, and lists that continue from the gateway's files
// into the provider's. Every JSON answer is checked against its schema.
import { request } from 'node:http';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { chatLine, GATEWAY_KEY, type JobsGateway, jsonl, plainHeaders, startJobsGateway, vendorHeaders } from '../jobs/harness.ts';

const FILE_LIMIT = 64 * 1024;

function form(purpose: string | null, content: string | Buffer, filename = 'input.jsonl'): FormData {
  const data = new FormData();
  if (purpose !== null) data.append('purpose', purpose);
  data.append('file', new Blob([content]), filename);
  return data;
}

describe.each(BACKENDS)('files on %s', (backend) => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway(backend, { vendorMocks: 1, settings: { fileMaxBytes: FILE_LIMIT } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('keeps a file in the gateway when the request names no provider with a files API, and serves it back', async () => {
    for (const headers of [{}, plainHeaders(gw.vendor[0])]) {
      const client = gw.client(headers);
      const content = jsonl([chatLine('a', 'hello'), chatLine('b', 'world')]);
      const file = await client.files.create({ file: await toFile(Buffer.from(content), 'batch.jsonl'), purpose: 'batch' });
      expect(file).toMatchObject({ object: 'file', bytes: Buffer.byteLength(content), filename: 'batch.jsonl', purpose: 'batch', status: 'processed' });
      expect((await gw.call('GET', `/v1/files/${file.id}`)).body).toEqual(file);
      expect(await (await client.files.content(file.id)).text()).toBe(content);
      const listed = [];
      for await (const item of client.files.list({ purpose: 'batch' })) listed.push(item.id);
      expect(listed).toContain(file.id);
      expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
      const gone = await gw.call('GET', `/v1/files/${file.id}`, { headers });
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe('resource_not_found');
    }
    expect(gw.vendor[0].requests.filter((r) => r.path.startsWith('/v1/files'))).toEqual([]);
  });

  it('serves a file back under any name: the download names it exactly (filename*, UTF-8) with an ASCII stand-in', async () => {
    const client = gw.client({});
    const content = jsonl([chatLine('a', 'hello')]);
    for (const filename of ['日本語の報告.jsonl', 'naïve\u0007\u202e😀.jsonl', 'plain.jsonl']) {
      const file = await client.files.create({ file: await toFile(Buffer.from(content), filename), purpose: 'batch' });
      expect(file.filename).toBe(filename);
      const res = await client.files.content(file.id);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(content);
      const disposition = res.headers.get('content-disposition')!;
      const encoded = /filename\*=UTF-8''(.+)$/.exec(disposition);
      if (filename === 'plain.jsonl') expect(disposition).toBe('attachment; filename="plain.jsonl"');
      else expect(decodeURIComponent(encoded![1])).toBe(filename);
    }
  });

  it('forwards uploads, reads, lists and deletes to a provider with a files API', async () => {
    const mock = gw.vendor[0];
    const client = gw.client(vendorHeaders(mock));
    const content = jsonl([{ messages: [{ role: 'user', content: 'hi' }] }]);
    const file = await client.files.create({ file: await toFile(Buffer.from(content), 'train.jsonl'), purpose: 'fine-tune' });
    expect(file.id).toMatch(/^file-/);
    const upload = mock.requests.find((r) => r.method === 'POST' && r.path === '/v1/files');
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload?.body).toContain(content);
    expect(upload?.headers.authorization).toBe(`Bearer ${'sk-vendor-mock-key'}`);
    expect((await gw.call('GET', `/v1/files/${file.id}`, { headers: { ...vendorHeaders(mock), authorization: 'Bearer sk-vendor-mock-key' } })).body).toEqual(file);
    expect(await (await client.files.content(file.id)).text()).toBe(content);
    expect(await client.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true });
    expect(mock.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/files/${file.id}`)).toBe(true);
  });

  it('lists the gateway\'s files first, then the provider\'s, each once, page by page', async () => {
    const mock = gw.vendor[0];
    const headers = vendorHeaders(mock);
    const local: string[] = [];
    for (let i = 0; i < 3; i++) local.push((await gw.client().files.create({ file: await toFile(Buffer.from('{"a":1}\n'), `l${i}.jsonl`), purpose: 'fine-tune' })).id);
    const remote: string[] = [];
    for (let i = 0; i < 4; i++) remote.push((await gw.client(headers).files.create({ file: await toFile(Buffer.from('{"a":1}\n'), `r${i}.jsonl`), purpose: 'fine-tune' })).id);
    const ids: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await gw.call('GET', `/v1/files?purpose=fine-tune&limit=2${after === undefined ? '' : `&after=${after}`}`, { headers: { ...headers, authorization: 'Bearer sk-vendor-mock-key' } });
      expect(page.status).toBe(200);
      expect(page.schema).toBe('resources/file-list.json');
      ids.push(...page.body.data.map((f: { id: string }) => f.id));
      pages++;
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    const ours = ids.filter((id) => local.includes(id) || remote.includes(id));
    expect(ours).toEqual([...[...local].reverse(), ...[...remote].reverse()]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBeGreaterThanOrEqual(4);
  });

  it('checks batch files line by line and names the first bad line', async () => {
    const cases: Array<[string, number | null, string]> = [
      [jsonl([chatLine('a', 'x'), { custom_id: 'b', method: 'GET', url: '/v1/chat/completions', body: {} }]), 2, 'invalid_method'],
      [`${JSON.stringify(chatLine('a', 'x'))}\n{not json\n`, 2, 'invalid_json'],
      [jsonl([chatLine('a', 'x'), chatLine('a', 'y')]), 2, 'duplicate_custom_id'],
      [jsonl([{ ...chatLine('a', 'x'), url: '/v1/images/generations' }]), 1, 'invalid_url'],
      [jsonl([{ ...chatLine('a', 'x'), body: { model: 'm', messages: [], stream: true } }]), 1, 'invalid_body'],
      ['\n\n', null, 'empty_file'],
    ];
    for (const [content, line, reason] of cases) {
      const res = await gw.call('POST', '/v1/files', { raw: form('batch', content) });
      expect(res.status, reason).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_file', param: 'file', line, reason });
    }
    const fineTune = await gw.call('POST', '/v1/files', { raw: form('fine-tune', '{"ok":1}\n[1,2]\n') });
    expect(fineTune.body.error).toMatchObject({ code: 'invalid_file', line: 2 });
  });

  it('refuses a file over the limit with 413 file_too_large, and bad forms with 400 naming the field', async () => {
    const big = await gw.call('POST', '/v1/files', { raw: form('fine-tune', Buffer.alloc(FILE_LIMIT + 1, 0x61)) });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'file_too_large', param: 'file' });
    expect(big.body.error.message).toContain(String(FILE_LIMIT));
    const exact = await gw.call('POST', '/v1/files', { raw: form('fine-tune', `{"a":"${'x'.repeat(FILE_LIMIT - 9)}"}\n`) });
    expect(exact.status).toBe(200);
    expect(exact.body.bytes).toBe(FILE_LIMIT);
    // A chunked upload announces no length: it is refused as soon as the file passes the limit.
    const url = new URL(gw.url);
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/v1/files', method: 'POST', headers: { 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'multipart/form-data; boundary=b' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('--b\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--b\r\ncontent-disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n');
      let sent = 0;
      const pump = (): void => {
        while (sent < 4 * 1024 * 1024) {
          sent += 16_384;
          if (!req.write(Buffer.alloc(16_384, 0x61))) {
            req.once('drain', pump);
            return;
          }
        }
        req.end('\r\n--b--\r\n');
      };
      pump();
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe('file_too_large');
    const noPurpose = await gw.call('POST', '/v1/files', { raw: form(null, '{}\n') });
    expect(noPurpose.body.error).toMatchObject({ code: 'invalid_request_body', param: 'purpose' });
    const badPurpose = await gw.call('POST', '/v1/files', { raw: form('assistants', '{}\n') });
    expect(badPurpose.body.error).toMatchObject({ code: 'invalid_request_body', param: 'purpose' });
    const notMultipart = await gw.call('POST', '/v1/files', { body: { purpose: 'batch' } });
    expect(notMultipart.body.error).toMatchObject({ code: 'invalid_request_body', param: 'content-type' });
    // A file the gateway keeps is its file and purpose: another field would be accepted and unused.
    const fields = (extra: string) => `--x\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nfine-tune\r\n${extra}--x\r\ncontent-disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{}\n\r\n--x--\r\n`;
    const multipart = { 'content-type': 'multipart/form-data; boundary=x' };
    const expiring = await gw.call('POST', '/v1/files', { raw: fields('--x\r\ncontent-disposition: form-data; name="expires_after[seconds]"\r\n\r\n3600\r\n'), headers: multipart });
    expect(expiring.status).toBe(400);
    expect(expiring.body.error).toMatchObject({ code: 'unsupported_parameter', param: 'expires_after[seconds]' });
    const misspelt = await gw.call('POST', '/v1/files', { raw: fields('--x\r\ncontent-disposition: form-data; name="purpos"\r\n\r\nbatch\r\n'), headers: multipart });
    expect(misspelt.body.error).toMatchObject({ code: 'invalid_request_body', param: 'purpos' });
    expect(misspelt.body.error.message).toContain('did you mean "purpose"?');
    const twice = await gw.call('POST', '/v1/files', { raw: fields('--x\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n'), headers: multipart });
    expect(twice.body.error).toMatchObject({ code: 'invalid_request_body', param: 'purpose' });
    expect((await gw.call('POST', '/v1/files', { raw: fields(''), headers: multipart })).status).toBe(200);
    const broken = await gw.call('POST', '/v1/files', { raw: '--x\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_request_body');
  });

  it('serves inference-scoped keys, not only admin keys', async () => {
    const created = await gw.call('POST', '/v1/api-keys', { body: { name: 'app', scope: 'inference' } });
    expect(created.status).toBe(200);
    const upload = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { 'x-gateway-api-key': created.body.key }, body: form('fine-tune', '{"a":1}\n') });
    expect(upload.status).toBe(200);
    const file = (await upload.json()) as { id: string };
    expect((await gw.call('GET', `/v1/files/${file.id}`)).status).toBe(200);
  });
});
