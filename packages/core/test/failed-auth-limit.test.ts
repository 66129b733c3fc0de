import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  type AuthOptions,
  createMcpApp,
  type HttpListener,
  JwtVerifier,
  McpServer,
  type ServerEvent,
  type TokenVerifier,
  Tool,
} from '../src/index.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

@McpServer({ name: 'guarded', version: '1.0.0' })
class GuardedServer {
  @Tool({ description: 'answers' })
  hello() {
    return 'hello';
  }
}

const ISSUER = 'http://127.0.0.1/issuer';
let jwks: { keys: JWK[] };
let sign: (sub: string, audience: string, key?: 'trusted' | 'forger') => Promise<string>;

beforeAll(async () => {
  const trusted = await generateKeyPair('ES256');
  const forger = await generateKeyPair('ES256');
  jwks = { keys: [{ ...(await exportJWK(trusted.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
  sign = (sub, audience, key = 'trusted') =>
    new SignJWT({ sub })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key === 'forger' ? forger.privateKey : trusted.privateKey);
});

const listeners: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

/** An ES256 JwtVerifier that counts the tokens it is asked to verify (each a signature check). */
function countingVerifier(resource: string): TokenVerifier & { checked: number } {
  const inner = new JwtVerifier({ issuer: ISSUER, audience: resource, jwks });
  const counting = {
    checked: 0,
    verify(token: string) {
      counting.checked++;
      return inner.verify(token);
    },
  };
  return counting;
}

/** A listener on 127.0.0.1 with bearer auth, behind one trusted proxy that sets X-Real-IP. */
async function listen(auth: Partial<AuthOptions> = {}) {
  const app = createMcpApp(GuardedServer);
  const events: ServerEvent[] = [];
  app.onEvent((event) => events.push(event));
  const probe = await app.listenHttp({ port: 0 });
  const { port } = new URL(probe.url);
  await probe.close();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const verifier = countingVerifier(resource);
  const listener = await app.listenHttp({
    port: Number(port),
    trustProxy: 'x-real-ip',
    auth: { verifier, resource, authorizationServers: [ISSUER], ...auth },
  });
  listeners.push(listener);
  const post = (ip: string, token?: string) =>
    rawHttp(listener.url, {
      headers: { ...JSON_HEADERS, 'x-real-ip': ip, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: INITIALIZE,
    });
  return { post, verifier, events, resource };
}

describe('the budget of failed authentications per client address (HTTP on 127.0.0.1)', () => {
  it('answers 300 requests without a token 401 sixty times (the default budget), then 429 with Retry-After', async () => {
    const { post, events } = await listen();
    const statuses: number[] = [];
    let retryAfter = '';
    for (let i = 0; i < 300; i++) {
      const res = await post('198.51.100.1');
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = String(res.headers['retry-after']);
        expect(JSON.parse(res.body).error.message).toMatch(
          /^Too Many Requests: more than 60 requests from this address failed authentication in 60 s \(auth.failedAuthLimit\); retry in \d+ s with a valid bearer token$/,
        );
      }
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(60);
    expect(statuses.slice(60).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(events.filter((e) => e.event === 'refused' && e.reason === 'failed-auth-limit')).toHaveLength(240);
    // Another address has its own budget.
    expect((await post('198.51.100.2')).status).toBe(401);
  });

  it('checks the signature of 60 of 300 forged ES256 tokens: the rest are refused 429 before any verification', async () => {
    const { post, verifier, resource } = await listen();
    const forged = await sign('mallory', resource, 'forger');
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await post('198.51.100.3', forged)).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(240);
    expect(verifier.checked).toBe(60);
    // A valid token from another address is served; from the exhausted one it waits like the rest.
    const valid = await sign('alice', resource);
    expect((await post('198.51.100.4', valid)).status).toBe(200);
    expect((await post('198.51.100.3', valid)).status).toBe(429);
    expect(verifier.checked).toBe(61);
  });

  it('takes its limit from auth.failedAuthLimit, and is off with false', async () => {
    const small = await listen({ failedAuthLimit: { limit: 2, windowMs: 60_000 } });
    const first = [];
    for (let i = 0; i < 4; i++) first.push((await small.post('198.51.100.5')).status);
    expect(first).toEqual([401, 401, 429, 429]);
    const off = await listen({ failedAuthLimit: false });
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++) statuses.add((await off.post('198.51.100.6')).status);
    expect([...statuses]).toEqual([401]);
  });

  it('refuses a bad failedAuthLimit at start-up, naming the option and the fix', async () => {
    const app = createMcpApp(GuardedServer);
    const verifier = { verify: async () => ({ token: 't', clientId: 'c', scopes: [] }) };
    const listening = app.listenHttp({
      port: 0,
      auth: { verifier, resource: 'http://127.0.0.1/mcp', authorizationServers: [ISSUER], failedAuthLimit: { limit: 0, windowMs: 1_500 } },
    });
    const thrown = await listening.then(
      (listener) => {
        listeners.push(listener);
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(ArmatureBuildError);
    expect((thrown as ArmatureBuildError).problems.map((p) => [p.code, p.message, p.fix])).toEqual([
      [
        'ARM304',
        'auth.failedAuthLimit has limit 0; it must be a whole number of calls, 1 or more',
        'auth.failedAuthLimit: { limit: 10, windowMs: 60_000 }',
      ],
      [
        'ARM304',
        'auth.failedAuthLimit has windowMs 1500; it must be a whole number of seconds in ms (1000 or more): the shared store counts whole seconds',
        'auth.failedAuthLimit: { limit: 10, windowMs: 60_000 }',
      ],
    ]);
    await app.close();
  });
});
