// Which client headers may never be forwarded to a provider, whatever a config or
// x-gateway-forward-headers asks: every x-gateway-* header (the gateway key, its options, and cloud
// credentials sent as headers, such as x-gateway-cloudc-secret-access-key). Used by the compiler
// (a config naming one is refused), the header parser (400) and the transport (never sent).
/** The prefix of every header the gateway itself reads or writes. */
export const GATEWAY_HEADER_PREFIX = 'x-gateway-';

export function isNeverForwarded(name: string): boolean {
  return name.toLowerCase().startsWith(GATEWAY_HEADER_PREFIX);
}
