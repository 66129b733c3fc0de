import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: equal arguments give equal text, whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The subscription id the draft asks for: deterministic over (principal, url, name, arguments), so
 * a refresh, another instance or a restarted one derive the same id. A routing handle, never input.
 */
export function subscriptionId(principal: string, url: string, name: string, args: Record<string, unknown>): string {
  const digest = createHash('sha256')
    .update(canonicalJson([principal, url, name, args]))
    .digest('hex');
  return `sub_${digest.slice(0, 24)}`;
}

/** The key of the verification cache: one handshake covers a principal's subscriptions to one URL. */
export function verificationKey(principal: string, url: string): string {
  return createHash('sha256')
    .update(canonicalJson([principal, url]))
    .digest('hex')
    .slice(0, 32);
}
