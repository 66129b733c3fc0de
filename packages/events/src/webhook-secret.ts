const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Whether `value` is a Standard Webhooks symmetric secret as the events draft requires of
 * `delivery.secret`: `whsec_` then the base64 of 24 to 64 bytes.
 */
export function isWebhookSecret(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(PREFIX)) return false;
  const encoded = value.slice(PREFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}
