// default.validUrls: every http(s) URL in the text is well-formed: it parses and names a host with a
// dot, an IP address or localhost. With onlyDNS, each host must also resolve, and to public addresses
// only (never a private, loopback, link-local or cloud metadata address). A text without URLs passes.
import { BlockList, isIP } from 'node:net';
import { embeddedIpv4, isMetadataAddress } from '../../../providers/host-policy.ts';
import { type CheckDefinition, type CheckInput, verdictOf } from '../check.ts';
import { kept } from '../../../core/memo.ts';

// A URL ends before a closing bracket (`[see https://a.example]`), except the one around an IPv6 host.
const URL_IN_TEXT = /\bhttps?:\/\/(?:\[[0-9a-f:.]+\][^\s<>"'`)\]}]*|[^\s<>"'`)\]}]+)/gi;

const NOT_PUBLIC = new BlockList();
for (const [address, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');

/** The URLs of a text, trailing sentence punctuation dropped. */
export function urlsIn(text: string): string[] {
  return [...text.matchAll(URL_IN_TEXT)].map((m) => m[0].replace(/[.,;:!?]+$/, ''));
}

/** The host of a well-formed URL, or null. */
export function wellFormedHost(candidate: string): string | null {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return null;
  return host === 'localhost' || isIP(host) !== 0 || (/^[a-z0-9.-]+$/i.test(host) && /\.[a-z][a-z0-9-]*[a-z0-9]$/i.test(host.replace(/\.$/, ''))) ? host : null;
}

/**
 * An IPv6 address that carries an IPv4 one (mapped `::ffff:10.0.0.1`, NAT64, 6to4) is as public as
 * the IPv4 address inside it: `http://[::ffff:127.0.0.1]/` reaches loopback on a dual-stack host.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0 || isMetadataAddress(address)) return false;
  if (NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')) return false;
  const embedded = family === 6 ? embeddedIpv4(address) : null;
  return embedded === null || isPublicAddress(embedded);
}

/** Distinct hosts one onlyDNS check resolves at most; a text naming more fails the check. */
export const MAX_RESOLVED_HOSTS = 20;

/** What the hosts of a phase's text resolved to: the onlyDNS checks of one phase read one text, and share its queries. */
const resolvedInPhase = new WeakMap<CheckInput, Map<string, Promise<boolean>>>();

export const validUrls: CheckDefinition = {
  kind: 'verdict',
  readsText: true,
  prepare(parameters, tools) {
    const onlyDns = parameters.onlyDNS === true;
    const resolvesPublicly = async (host: string): Promise<boolean> => {
      try {
        const addresses = isIP(host) !== 0 ? [host] : await tools.resolve(host);
        return addresses.length > 0 && addresses.every(isPublicAddress);
      } catch {
        return false;
      }
    };
    return (input) => {
      const urls = urlsIn(input.text);
      const hosts: string[] = [];
      for (const url of urls) {
        const host = wellFormedHost(url);
        if (host === null) return verdictOf(false, parameters, `${url} is not a valid URL`);
        hosts.push(host);
      }
      if (!onlyDns || hosts.length === 0) return verdictOf(true, parameters, urls.length === 0 ? 'no URLs' : `${urls.length} valid URLs`);
      const distinct = [...new Set(hosts)];
      // Each name is a DNS query the gateway makes for whoever wrote the text: a text of ten thousand
      // names would have queued ten thousand lookups ahead of the gateway's own connections.
      if (distinct.length > MAX_RESOLVED_HOSTS) return verdictOf(false, parameters, `the text names ${distinct.length} hosts, more than the ${MAX_RESOLVED_HOSTS} a check resolves`);
      const resolved = kept(resolvedInPhase, input, () => new Map<string, Promise<boolean>>());
      return Promise.all(distinct.map(async (host) => ({ host, ok: await kept(resolved, host, resolvesPublicly) }))).then((verdicts) => {
        const bad = verdicts.find((v) => !v.ok);
        return verdictOf(bad === undefined, parameters, bad === undefined ? `${urls.length} URLs resolve to public addresses` : `${bad.host} does not resolve to a public address`);
      });
    };
  },
};
