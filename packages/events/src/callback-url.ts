import { bareHost, EgressPolicy } from './egress.js';
import { EVENTS_MESSAGES as M } from './messages.js';

export type CallbackCheck = { readonly ok: true; readonly url: string } | { readonly ok: false; readonly message: string };

/** `delivery.url` parsed and normalized: an absolute http(s) URL without credentials. No network. */
export function parseCallbackUrl(raw: unknown): CallbackCheck {
  if (typeof raw !== 'string' || raw.length > 2_048) return { ok: false, message: M.badUrl(String(raw).slice(0, 200)) };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: M.badUrl(raw) };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, message: M.badUrl(raw) };
  if (url.username !== '' || url.password !== '') return { ok: false, message: M.credentialsInUrl() };
  return { ok: true, url: url.href };
}

/**
 * The subscribe-time check of a parsed callback URL: its host resolves only to addresses the egress
 * policy permits (plain http only to an explicitly allowed address). Deliveries check the resolved
 * address again at connect time, against DNS rebinding.
 */
export async function checkCallbackTarget(href: string, policy: EgressPolicy): Promise<CallbackCheck> {
  const url = new URL(href);
  let addresses: string[];
  try {
    addresses = await EgressPolicy.resolve(bareHost(url));
  } catch {
    return { ok: false, message: M.unresolvable(href) };
  }
  const refused = addresses.find((address) => !policy.permits(address));
  if (refused !== undefined || addresses.length === 0) return { ok: false, message: M.refusedTarget(href, refused ?? 'nothing') };
  if (url.protocol === 'http:' && !addresses.every((address) => policy.listed(address))) return { ok: false, message: M.insecureUrl(href) };
  return { ok: true, url: href };
}
