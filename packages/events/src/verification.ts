import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { EgressPolicy } from './egress.js';
import { signedHeaders } from './signature.js';
import { type FailureCategory, postWebhook } from './webhook-post.js';

export interface ChallengeTarget {
  readonly url: string;
  readonly secret: string;
  readonly subscriptionId: string;
}

/**
 * The draft's endpoint verification: a signed `{"type":"verification","challenge":"<nonce>"}` POST
 * that the receiver must answer with a 2xx and `{"challenge":"<nonce>"}`. Proves the receiver wants
 * these deliveries, so nobody can point a server's events at a third party's URL.
 * Resolves to undefined when it passed, or to the failure category.
 */
export async function challengeReceiver(
  target: ChallengeTarget,
  policy: EgressPolicy,
  timeoutMs: number,
): Promise<FailureCategory | undefined> {
  const nonce = randomBytes(24).toString('base64url');
  const body = JSON.stringify({ type: 'verification', challenge: nonce });
  const webhookId = `msg_verification_${randomBytes(12).toString('hex')}`;
  const headers = signedHeaders([target.secret], webhookId, target.subscriptionId, body, new Date());
  const outcome = await postWebhook(target.url, headers, body, { policy, timeoutMs, maxResponseBytes: 4_096 });
  if (!outcome.ok) return outcome.category;
  let echoed: unknown;
  try {
    echoed = (JSON.parse(outcome.body) as { challenge?: unknown }).challenge;
  } catch {
    return 'challenge_failed';
  }
  if (typeof echoed !== 'string') return 'challenge_failed';
  const given = Buffer.from(echoed);
  const expected = Buffer.from(nonce);
  return given.length === expected.length && timingSafeEqual(given, expected) ? undefined : 'challenge_failed';
}
