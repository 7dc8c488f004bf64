// Which custom hosts the gateway may call. A custom_host is client input (inline configs, the
// x-gateway-custom-host header), so without a policy the gateway is an open door to the cloud
// metadata service. Loopback and private ranges stay allowed by default: self-hosted models live there.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { GatewayError } from '../core/errors.ts';
import { METADATA_NAMES, METADATA_RANGES } from './metadata-endpoints.ts';

export const ALLOWLIST_ENV = 'GATEWAY_CUSTOM_HOST_ALLOWLIST';

/** Where cloud metadata services answer (runtime/providers/metadata-endpoints.ts). */
const BLOCKED = new BlockList();
for (const range of METADATA_RANGES) BLOCKED.addSubnet(range.address, range.prefix, range.family);
const BLOCKED_NAMES = new Set(METADATA_NAMES);

/**
 * Whether an address is a metadata address, in any spelling: IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are
 * judged by the IPv4 address inside them too.
 */
export function isMetadataAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  if (BLOCKED.check(address, 'ipv6')) return true;
  const embedded = embeddedIpv4(address);
  return embedded !== null && BLOCKED.check(embedded, 'ipv4');
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
export function embeddedIpv4(address: string): string | null {
  const words = ipv6Words(address);
  if (words === null) return null;
  const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number): boolean => words.slice(from, to).every((w) => w === 0);
  // ::ffff:a.b.c.d and ::a.b.c.d (the unspecified and loopback addresses aside)
  if (zeros(0, 5) && (words[5] === 0xffff || (words[5] === 0 && (words[6] !== 0 || words[7] > 1)))) return v4(words[6], words[7]);
  // 64:ff9b::a.b.c.d (and the local-use 64:ff9b:1::/48)
  if (words[0] === 0x64 && words[1] === 0xff9b) return v4(words[6], words[7]);
  // 2002:AABB:CCDD::/48
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return null;
}

function ipv6Words(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const parts = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  const words = [...left, ...Array.from({ length: tail === undefined ? 0 : missing }, () => '0'), ...right].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

/**
 * A verdict without DNS, for what can be judged from the URL alone (an IP literal, a metadata name):
 * saved configs and virtual keys are checked with it when written. Null when only DNS can tell.
 */
export function refusedWithoutLookup(url: URL): string | null {
  const hostname = policyHostname(url);
  if (BLOCKED_NAMES.has(hostname)) return `${hostname} is a cloud metadata name`;
  if (isIP(hostname) !== 0 && isMetadataAddress(hostname)) return `${hostname} is a link-local or metadata address`;
  return null;
}

const VERDICT_TTL_MS = 30_000;
const VERDICT_LIMIT = 1000;

export type Resolver = (hostname: string) => Promise<string[]>;
/** node:dns `lookup` with `all: true`, injectable for tests. */
export type ConnectResolver = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

async function resolveAll(hostname: string): Promise<string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

interface Verdict {
  allowed: boolean;
  reason: string;
  expires: number;
}

export class HostPolicy {
  /** Allow-listed host names (lower case); `*.example.com` entries are kept as `.example.com`. */
  readonly #names = new Set<string>();
  readonly #suffixes: string[] = [];
  readonly #ranges = new BlockList();
  readonly #restrictive: boolean;
  readonly #resolve: Resolver;
  readonly #connectResolve: ConnectResolver;
  readonly #now: () => number;
  readonly #verdicts = new Map<string, Verdict>();

  /**
   * `allowlist`: host names (`models.internal`, `*.example.com`), addresses and CIDR ranges. Empty:
   * every host is allowed except link-local and metadata addresses. Not empty: only what it lists,
   * and what it lists is allowed even inside the blocked ranges.
   */
  constructor(allowlist: readonly string[] = [], options: { resolve?: Resolver; connectResolve?: ConnectResolver; now?: () => number } = {}) {
    for (const raw of allowlist) {
      const entry = raw.trim().toLowerCase();
      if (entry === '') continue;
      const slash = entry.indexOf('/');
      const address = slash < 0 ? entry : entry.slice(0, slash);
      const family = isIP(address.replace(/^\[|\]$/g, ''));
      if (family !== 0) {
        const type = family === 4 ? 'ipv4' : 'ipv6';
        const bare = address.replace(/^\[|\]$/g, '');
        if (slash < 0) this.#ranges.addAddress(bare, type);
        else {
          const prefix = Number(entry.slice(slash + 1));
          if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`${ALLOWLIST_ENV}: bad CIDR ${raw}`);
          this.#ranges.addSubnet(bare, prefix, type);
        }
      } else if (entry.startsWith('*.')) {
        this.#suffixes.push(entry.slice(1));
      } else if (/^[a-z0-9.-]+$/.test(entry)) {
        this.#names.add(entry);
      } else {
        throw new Error(`${ALLOWLIST_ENV}: ${JSON.stringify(raw)} is neither a host name, an address nor a CIDR range`);
      }
    }
    this.#restrictive = this.#names.size + this.#suffixes.length > 0 || this.#ranges.rules.length > 0;
    this.#resolve = options.resolve ?? resolveAll;
    this.#connectResolve = options.connectResolve ?? (dnsLookup as unknown as ConnectResolver);
    this.#now = options.now ?? Date.now;
  }

  static fromEnv(env: NodeJS.ProcessEnv = process.env): HostPolicy {
    return new HostPolicy((env[ALLOWLIST_ENV] ?? '').split(','));
  }

  /**
   * The DNS lookup every upstream connection uses (runtime/upstream/pools.ts). `check` judged the
   * addresses a name had then; a name can answer differently a moment later (DNS rebinding), so the
   * socket itself refuses link-local and metadata addresses that are not allow-listed.
   */
  readonly connectLookup: LookupFunction = (hostname, options, callback) => {
    this.#connectResolve(hostname, { ...options, all: true }, (error, addresses) => {
      const reply = callback as (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
      if (error !== null) return reply(error, '', 0);
      const usable = addresses.filter((entry) => this.#connectable(hostname, entry.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves only to link-local or metadata addresses`), { code: 'ECONNREFUSED' }) as NodeJS.ErrnoException;
        return reply(refused, '', 0);
      }
      if (options.all === true) return reply(null, usable);
      return reply(null, usable[0].address, usable[0].family);
    });
  };

  #connectable(hostname: string, address: string): boolean {
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (!isMetadataAddress(address)) return true;
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return this.#names.has(name) || this.#suffixes.some((suffix) => name.endsWith(suffix)) || this.#ranges.check(address, type);
  }

  /** Resolves when `url`'s host may be called; throws `custom_host_not_allowed` otherwise. */
  async check(url: URL, param: string): Promise<void> {
    if (this.checkCached(url, param)) return;
    const hostname = policyHostname(url);
    const now = this.#now();
    const verdict = await this.#decide(hostname, now);
    if (this.#verdicts.size >= VERDICT_LIMIT) this.#verdicts.clear();
    this.#verdicts.set(hostname, verdict);
    if (!verdict.allowed) throw notAllowed(url, verdict, param);
  }

  /**
   * `check` without a promise when the verdict is known: true when `url` may be called, false when
   * no fresh verdict is cached (call `check`); throws `custom_host_not_allowed` like `check`. The
   * request path uses it so a known host costs one map lookup and no await.
   */
  checkCached(url: URL, param: string, hostname: string = policyHostname(url)): boolean {
    const verdict = this.#verdicts.get(hostname);
    if (verdict === undefined || verdict.expires <= this.#now()) return false;
    if (!verdict.allowed) throw notAllowed(url, verdict, param);
    return true;
  }

  async #decide(hostname: string, now: number): Promise<Verdict> {
    const expires = now + VERDICT_TTL_MS;
    const namedAllowed = this.#names.has(hostname) || this.#suffixes.some((suffix) => hostname.endsWith(suffix));
    // Refused by name, before DNS: inside a cloud these resolve to the metadata service.
    if (!namedAllowed && BLOCKED_NAMES.has(hostname)) return { allowed: false, reason: `${hostname} is a cloud metadata name (allow it explicitly with ${ALLOWLIST_ENV})`, expires };
    let addresses: string[];
    if (isIP(hostname) !== 0) {
      addresses = [hostname];
    } else {
      try {
        addresses = await this.#resolve(hostname);
      } catch {
        // Unresolvable now: the call fails as unreachable anyway. Not cached, so it is decided again.
        return { allowed: !this.#restrictive || namedAllowed, reason: `${hostname} is not on ${ALLOWLIST_ENV}`, expires: now };
      }
    }
    // Every address must pass: a name with one public and one metadata address is refused.
    for (const address of addresses) {
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      const listed = namedAllowed || this.#ranges.check(address, type);
      if (this.#restrictive && !listed) return { allowed: false, reason: `${hostname} is not on ${ALLOWLIST_ENV}`, expires };
      if (!listed && isMetadataAddress(address)) {
        return { allowed: false, reason: `it resolves to the link-local or metadata address ${address} (allow it explicitly with ${ALLOWLIST_ENV})`, expires };
      }
    }
    return { allowed: true, reason: '', expires };
  }
}

/** The host name verdicts are kept under: lower case, without IPv6 brackets or a trailing dot. */
export function policyHostname(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

function notAllowed(url: URL, verdict: Verdict, param: string): GatewayError {
  return new GatewayError('custom_host_not_allowed', `The custom host ${url.host} is not allowed: ${verdict.reason}.`, param);
}
