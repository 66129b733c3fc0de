import { request } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { IsString } from 'class-validator';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpApp, type HttpListener, JwtVerifier, type ListenHttpOptions, McpServer, type TokenVerifier, Tool } from '../src/index.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

class EchoInput {
  @IsString()
  text!: string;
}

@McpServer({ name: 'isolation-auth', version: '1.0.0' })
class EchoServer {
  @Tool({ description: 'echo' })
  echo(input: EchoInput) {
    return input.text;
  }
}

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

const RESOURCE = 'http://127.0.0.1/mcp';

async function listen(verifier: TokenVerifier, options: ListenHttpOptions = {}): Promise<HttpListener> {
  const listener = await createMcpApp(EchoServer).listenHttp({
    port: 0,
    auth: { verifier, resource: RESOURCE, authorizationServers: ['http://127.0.0.1/issuer'] },
    ...options,
  });
  open.push(listener);
  return listener;
}

/** A custom verifier: opaque tokens naming a user, as a company's own token service would. */
function customVerifier(principals: Record<string, Omit<AuthInfo, 'token'>>): TokenVerifier {
  return {
    async verify(token) {
      const principal = principals[token];
      if (!principal) throw new Error('unknown token');
      return { token, ...principal };
    },
  };
}

const bearer = (token: string) => ({ ...JSON_HEADERS, authorization: `Bearer ${token}` });
const inSession = (token: string, session: string) => ({
  ...bearer(token),
  'mcp-session-id': session,
  'mcp-protocol-version': '2025-11-25',
});

async function openSession(url: string, token: string): Promise<string> {
  const init = await rawHttp(url, { headers: bearer(token), body: INITIALIZE });
  expect(init.status).toBe(200);
  const session = init.headers['mcp-session-id'] as string;
  await rawHttp(url, { headers: inSession(token, session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return session;
}

describe('session ownership needs a subject', () => {
  it('refuses a custom verifier’s principal without extra.sub with 500 naming the fix, so two users never share an owner', async () => {
    // The verifier names the user in `extra.user`: before, Alice and Bob were the same owner ("app").
    const listener = await listen(
      customVerifier({
        alice: { clientId: 'app', scopes: [], extra: { user: 'alice' } },
        bob: { clientId: 'app', scopes: [], extra: { user: 'bob' } },
      }),
    );
    const res = await rawHttp(listener.url, { headers: bearer('alice'), body: INITIALIZE });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32603,
        message:
          'Internal Server Error: the TokenVerifier returned a principal without a subject; return `extra: { sub: <user id> }` from verify() so each user gets their own sessions',
      },
    });
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('keeps Bob out of Alice’s session and out of her event stream when the verifier names them in extra.sub', async () => {
    const listener = await listen(
      customVerifier({
        alice: { clientId: 'app', scopes: [], extra: { sub: 'alice' } },
        bob: { clientId: 'app', scopes: [], extra: { sub: 'bob' } },
      }),
      { eventStore: true },
    );
    const alice = await openSession(listener.url, 'alice');
    const answer = await rawHttp(listener.url, {
      headers: inSession('alice', alice),
      // Over 16 KiB, so that the answer is a stored stream with event ids (a smaller one answered at
      // once is one JSON body, stored nowhere).
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'alice-only'.padEnd(17_000, '.') } },
      }),
    });
    const eventId = /^id: (.+)$/m.exec(answer.body)?.[1] as string;
    expect(eventId).toBeDefined();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect((await rawHttp(listener.url, { headers: inSession('bob', alice), body: list })).status).toBe(404);

    const bob = await openSession(listener.url, 'bob');
    const abort = new AbortController();
    const replay = await fetch(listener.url, {
      headers: { ...inSession('bob', bob), accept: 'text/event-stream', 'last-event-id': eventId },
      signal: abort.signal,
    });
    // Read for 600 ms once the answer has begun (a wrongly opened stream would never end); counted
    // from the headers, so a slow start cannot abort the request itself.
    setTimeout(() => abort.abort(), 600);
    const text = await replay.text().catch(() => '');
    expect(replay.status).toBe(404);
    expect(text).not.toContain('alice-only');
  });

  it('counts maxSessionsPerClient per subject, not per shared address', async () => {
    const listener = await listen(
      customVerifier({
        alice: { clientId: 'app', scopes: [], extra: { sub: 'alice' } },
        bob: { clientId: 'app', scopes: [], extra: { sub: 'bob' } },
      }),
      { maxSessionsPerClient: 1 },
    );
    await openSession(listener.url, 'alice');
    await openSession(listener.url, 'bob');
    expect((await rawHttp(listener.url, { headers: bearer('alice'), body: INITIALIZE })).status).toBe(429);
  });
});

describe('checks no other test guards', () => {
  it('refuses an expired principal from a custom TokenVerifier (the endpoint checks expiresAt)', async () => {
    const listener = await listen(
      customVerifier({ stale: { clientId: 'app', scopes: [], expiresAt: Math.floor(Date.now() / 1000) - 60, extra: { sub: 'u' } } }),
    );
    const res = await rawHttp(listener.url, { headers: bearer('stale'), body: INITIALIZE });
    expect(res.status).toBe(401);
    expect(String(res.headers['www-authenticate'])).toContain('error="invalid_token", error_description="the token has expired"');
  });

  it('refuses a JWT from another issuer, and one without a subject', async () => {
    const keys = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k', alg: 'ES256' };
    const listener = await listen(new JwtVerifier({ issuer: 'https://auth.example.com', audience: RESOURCE, jwks: { keys: [jwk] } }));
    const sign = (issuer: string, sub?: string) => {
      const jwt = new SignJWT({ client_id: 'cli' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .setIssuer(issuer)
        .setAudience(RESOURCE)
        .setExpirationTime('5m');
      return (sub ? jwt.setSubject(sub) : jwt).sign(keys.privateKey);
    };
    const good = await rawHttp(listener.url, { headers: bearer(await sign('https://auth.example.com', 'u1')), body: INITIALIZE });
    expect(good.status).toBe(200);
    for (const [token, reason] of [
      [await sign('https://evil.example.com', 'u1'), 'the token\'s "iss" claim is not accepted'],
      [await sign('https://auth.example.com'), 'the token\'s "sub" claim is not accepted'],
    ] as const) {
      const res = await rawHttp(listener.url, { headers: bearer(token), body: INITIALIZE });
      expect(res.status).toBe(401);
      expect(String(res.headers['www-authenticate'])).toContain(`error_description="${reason.replace(/"/g, '')}"`);
    }
  });
});

describe('a verifier that breaks the AuthInfo contract', () => {
  it('gets 500 instead of a request left unanswered (no scopes array from a JavaScript verifier)', async () => {
    const broken = { verify: async (token: string) => ({ token, clientId: 'app', extra: { sub: 'u' } }) as unknown as AuthInfo };
    const listener = await createMcpApp(EchoServer).listenHttp({
      port: 0,
      auth: { verifier: broken, resource: RESOURCE, authorizationServers: ['http://127.0.0.1/issuer'], requiredScopes: ['notes:read'] },
    });
    open.push(listener);
    const res = await rawHttp(listener.url, { headers: bearer('any'), body: INITIALIZE });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
  });
});

describe('authentication before the body', () => {
  it('answers 401 from the headers while a large unauthenticated body is still being sent', async () => {
    const listener = await listen(customVerifier({}));
    const { port } = new URL(listener.url);
    const declared = 3_900_000;
    // Only the first kilobyte of the declared 3.9 MB is ever sent: any answer at all came from the
    // headers. The 10 s bound only decides when to give up on one that never comes.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...JSON_HEADERS, 'content-length': String(declared) } },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
          req.destroy();
        },
      );
      req.on('error', () => undefined);
      req.setTimeout(10_000, () => reject(new Error('no answer while the body was unsent: the body is read before authentication')));
      req.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"${'x'.repeat(1_000)}`);
    });
    expect(status).toBe(401);
  });
});
