import type { TokenVerifier } from '@armature/core';
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

export type Result = Record<string, unknown>;

/** Any object as an answer's schema: the official client checks each answer against the one it is given. */
export const anyResult: StandardSchemaV1<Result, Result> = {
  '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value: value as Result }) },
};

/** Bearer keys `key-<who>`: the caller is `who` (one client id), so subscriptions and streams are keyed on it. */
export class Keys implements TokenVerifier {
  async verify(token: string) {
    const who = /^key-(\w+)$/.exec(token)?.[1];
    if (!who) throw new Error('unknown key');
    return { token, clientId: 'incident-app', scopes: [], extra: { sub: who } };
  }
}
