import { Webhook } from 'standardwebhooks';

/** The MCP-specific header that names the subscription, so a receiver picks the secret before parsing. */
export const SUBSCRIPTION_ID_HEADER = 'X-MCP-Subscription-Id';

/**
 * The headers of one signed POST, per Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix
 * seconds) and `webhook-signature` with one `v1,<base64>` per secret, space-separated (two while a
 * rotated secret is in its grace window), plus the subscription id header. Called for every attempt,
 * so each retry carries a fresh timestamp.
 */
export function signedHeaders(
  secrets: readonly string[],
  webhookId: string,
  subscriptionId: string,
  body: string,
  now: Date,
): Record<string, string> {
  // The library signs over the whole seconds of the timestamp it is given, as it writes it.
  const at = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const signatures = secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body));
  return {
    'content-type': 'application/json',
    'webhook-id': webhookId,
    'webhook-timestamp': String(at.getTime() / 1000),
    'webhook-signature': signatures.join(' '),
    [SUBSCRIPTION_ID_HEADER]: subscriptionId,
  };
}
