// custom_host safety: link-local and metadata addresses refused unless allow-listed, loopback and
// private ranges allowed by default, host names judged by every address they resolve to, and an
// allow-list that, once set, admits only what it lists.
import { describe, expect, it } from 'vitest';
import { embeddedIpv4, HostPolicy, isMetadataAddress, refusedWithoutLookup } from '../../runtime/providers/host-policy.ts';
import { METADATA_NAMES, METADATA_RANGES } from '../../runtime/providers/metadata-endpoints.ts';
import { startProviderGateway } from './gateway.ts';

const fakeDns = (table: Record<string, string[]>) => async (host: string) => {
  if (!(host in table)) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return table[host];
};

async function verdict(policy: HostPolicy, url: string): Promise<string> {
  try {
    await policy.check(new URL(url), 'custom_host');
    return 'allowed';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('host policy, default', () => {
  const policy = new HostPolicy([], {
    resolve: fakeDns({
      localhost: ['127.0.0.1', '::1'],
      'models.internal': ['10.1.2.3'],
      'metadata.evil': ['169.254.169.254'],
      'mixed.evil': ['93.184.216.34', '169.254.169.254'],
      'v6meta.evil': ['fd00:ec2::254'],
      'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
    }),
  });

  it.each([
    ['http://127.0.0.1:11434/v1', 'allowed'],
    ['http://localhost:8000', 'allowed'],
    ['http://10.0.0.7/v1', 'allowed'],
    ['http://192.168.1.20:8080', 'allowed'],
    ['http://[::1]:8000', 'allowed'],
    ['http://models.internal/v1', 'allowed'],
    ['https://public.example/v1', 'allowed'],
    ['http://169.254.169.254/latest/meta-data', 'custom_host_not_allowed'],
    ['http://169.254.0.1', 'custom_host_not_allowed'],
    ['http://2852039166/', 'custom_host_not_allowed'],
    ['http://0xa9.0xfe.0xa9.0xfe/', 'custom_host_not_allowed'],
    ['http://[fd00:ec2::254]/', 'custom_host_not_allowed'],
    ['http://[::ffff:169.254.169.254]/', 'custom_host_not_allowed'],
    ['http://[fe80::1]/', 'custom_host_not_allowed'],
    ['http://metadata.evil/', 'custom_host_not_allowed'],
    ['http://mixed.evil/', 'custom_host_not_allowed'],
    ['http://v6meta.evil/', 'custom_host_not_allowed'],
    ['http://METADATA.evil./', 'custom_host_not_allowed'],
  ])('%s → %s', async (url, expected) => {
    expect(await verdict(policy, url)).toBe(expected);
  });

  it('lets an unresolvable name through (the call then fails as unreachable) and decides it again next time', async () => {
    let lookups = 0;
    const flaky = new HostPolicy([], { resolve: async (host) => (lookups++ === 0 ? Promise.reject(new Error('ENOTFOUND')) : host === 'later.evil' ? ['169.254.169.254'] : []) });
    expect(await verdict(flaky, 'http://later.evil/')).toBe('allowed');
    expect(await verdict(flaky, 'http://later.evil/')).toBe('custom_host_not_allowed');
  });

  it('caches verdicts for a while, then resolves again (a name that moves is caught)', async () => {
    let now = 0;
    let address = '10.0.0.1';
    const moving = new HostPolicy([], { resolve: async () => [address], now: () => now });
    expect(await verdict(moving, 'http://moving.test/')).toBe('allowed');
    address = '169.254.169.254';
    expect(await verdict(moving, 'http://moving.test/')).toBe('allowed');
    now += 31_000;
    expect(await verdict(moving, 'http://moving.test/')).toBe('custom_host_not_allowed');
  });
});

describe('host policy with an allow-list', () => {
  const policy = new HostPolicy(['*.corp.example', 'models.internal', '10.20.0.0/16', '169.254.169.254', 'fd00:ec2::254'], {
    resolve: fakeDns({ 'a.corp.example': ['169.254.10.10'], 'models.internal': ['10.1.2.3'], 'other.example': ['10.20.1.1'], 'nope.example': ['8.8.8.8'] }),
  });

  it.each([
    ['http://a.corp.example/', 'allowed'],
    ['http://models.internal/', 'allowed'],
    ['http://other.example/', 'allowed'],
    ['http://10.20.3.4/', 'allowed'],
    ['http://169.254.169.254/', 'allowed'],
    ['http://[fd00:ec2::254]/', 'allowed'],
    ['http://nope.example/', 'custom_host_not_allowed'],
    ['http://127.0.0.1/', 'custom_host_not_allowed'],
    ['http://corp.example/', 'custom_host_not_allowed'],
  ])('%s → %s', async (url, expected) => {
    expect(await verdict(policy, url)).toBe(expected);
  });

  it('rejects entries that are neither names, addresses nor ranges', () => {
    expect(() => new HostPolicy(['http://x/'])).toThrow(/GATEWAY_CUSTOM_HOST_ALLOWLIST/);
    expect(() => new HostPolicy(['10.0.0.0/33'])).toThrow(/CIDR/);
    expect(HostPolicy.fromEnv({ GATEWAY_CUSTOM_HOST_ALLOWLIST: 'a.example, 10.0.0.0/8' })).toBeInstanceOf(HostPolicy);
  });
});

describe('through the gateway', () => {
  it('answers 403 custom_host_not_allowed for a metadata host, from a header or an inline config, without calling it', async () => {
    const gw = await startProviderGateway();
    try {
      const chat = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
      const byHeader = await fetch(`${gw.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': 'gw-providers-key', 'x-gateway-provider': 'vendor', 'x-gateway-custom-host': 'http://169.254.169.254/latest', authorization: 'Bearer sk-x', 'content-type': 'application/json' },
        body: JSON.stringify(chat),
      });
      expect(byHeader.status).toBe(403);
      expect(((await byHeader.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'custom_host_not_allowed', param: 'custom_host' });
      const byConfig = await gw.post('/v1/chat/completions', { provider: 'vendor', api_key: 'k', custom_host: 'http://[fd00:ec2::254]/v1' }, chat);
      expect(byConfig.status).toBe(403);
      const badUrl = await gw.post('/v1/chat/completions', { provider: 'vendor', api_key: 'k', custom_host: 'http://user:pw@127.0.0.1/v1' }, chat);
      expect(((await badUrl.json()) as { error: { code: string } }).error.code).toBe('invalid_custom_host');
    } finally {
      await gw.close();
    }
  });
});

describe('metadata endpoints, in every spelling', () => {
  const noDns = async (): Promise<string[]> => {
    throw new Error('no DNS in this test');
  };

  it.each(METADATA_RANGES.map((range) => [range.address, range.why] as const))('refuses the range of %s (%s)', async (address) => {
    const policy = new HostPolicy([], { resolve: noDns });
    const host = address.includes(':') ? `[${address}]` : address;
    await expect(policy.check(new URL(`http://${host}/v1`), 'custom_host')).rejects.toMatchObject({ code: 'custom_host_not_allowed' });
  });

  it.each(METADATA_NAMES.map((name) => [name]))('refuses the name %s before any DNS lookup', async (name) => {
    let looked = false;
    const policy = new HostPolicy([], { resolve: async () => ((looked = true), ['93.184.216.34']) });
    await expect(policy.check(new URL(`http://${name}/v1`), 'custom_host')).rejects.toMatchObject({ code: 'custom_host_not_allowed' });
    await expect(policy.check(new URL(`http://${name.toUpperCase()}./v1`), 'custom_host')).rejects.toMatchObject({ code: 'custom_host_not_allowed' });
    expect(looked).toBe(false);
  });

  it.each([
    ['IPv4-compatible IPv6', 'http://[::169.254.169.254]/v1'],
    ['IPv4-mapped IPv6', 'http://[::ffff:169.254.169.254]/v1'],
    ['NAT64', 'http://[64:ff9b::a9fe:a9fe]/v1'],
    ['6to4', 'http://[2002:a9fe:a9fe::1]/v1'],
    ['Alibaba Cloud', 'http://100.100.100.200/v1'],
    ['decimal IPv4', 'http://2852039166/v1'],
  ])('refuses the %s spelling of a metadata address', async (_name, url) => {
    const policy = new HostPolicy([], { resolve: noDns });
    await expect(policy.check(new URL(url), 'custom_host')).rejects.toMatchObject({ code: 'custom_host_not_allowed' });
    expect(refusedWithoutLookup(new URL(url))).not.toBeNull();
  });

  it('reads the IPv4 address inside IPv6 forms, and nothing from the others', () => {
    expect(embeddedIpv4('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(embeddedIpv4('::a9fe:a9fe')).toBe('169.254.169.254');
    expect(embeddedIpv4('64:ff9b::7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('2002:c000:0204::')).toBe('192.0.2.4');
    expect(embeddedIpv4('::1')).toBeNull();
    expect(embeddedIpv4('2001:db8::1')).toBeNull();
    expect(isMetadataAddress('::ffff:127.0.0.1')).toBe(false);
    expect(refusedWithoutLookup(new URL('http://127.0.0.1:8080/v1'))).toBeNull();
    expect(refusedWithoutLookup(new URL('https://api.example.com/v1'))).toBeNull();
  });
});
