import type { AuthInfo } from '@modelcontextprotocol/server';
import type { HttpEndpointOptions } from '../../src/index.js';

/** Two principals of one client app, by bearer token: what the task tests tell owners apart with. */
export const PRINCIPALS: Record<string, Omit<AuthInfo, 'token'>> = {
  'token-ann': { clientId: 'app', scopes: [], extra: { sub: 'ann' } },
  'token-bob': { clientId: 'app', scopes: [], extra: { sub: 'bob' } },
};

/** `listenHttp` options whose bearer auth accepts the tokens of `PRINCIPALS` and refuses any other. */
export function tokenAuth(): Pick<HttpEndpointOptions, 'auth'> {
  return {
    auth: {
      verifier: {
        async verify(token: string) {
          const principal = PRINCIPALS[token];
          if (!principal) throw new Error('unknown token');
          return { token, ...principal };
        },
      },
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['http://127.0.0.1/issuer'],
    },
  };
}
