// Where cloud metadata services answer: a custom host must never reach them (they hand out the
// machine's cloud credentials). Kept as data, each entry with a test (test/providers/host-policy.test.ts).

/** Address ranges: link-local (every cloud's 169.254.169.254), and the clouds that use other addresses. */
export const METADATA_RANGES: ReadonlyArray<{ address: string; prefix: number; family: 'ipv4' | 'ipv6'; why: string }> = [
  { address: '169.254.0.0', prefix: 16, family: 'ipv4', why: 'IPv4 link-local: AWS, GCP, Azure, OCI, DigitalOcean metadata at 169.254.169.254' },
  { address: 'fe80::', prefix: 10, family: 'ipv6', why: 'IPv6 link-local' },
  { address: 'fd00:ec2::254', prefix: 128, family: 'ipv6', why: 'AWS IMDS over IPv6' },
  { address: '100.100.100.200', prefix: 32, family: 'ipv4', why: 'Alibaba Cloud metadata' },
  { address: '192.0.0.192', prefix: 32, family: 'ipv4', why: 'Oracle Cloud (classic) metadata' },
];

/** Names that reach a metadata service through the cloud's own DNS, refused before any lookup. */
export const METADATA_NAMES: readonly string[] = [
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
];
