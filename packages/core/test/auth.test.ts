import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString } from 'class-validator';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Context,
  createMcpApp,
  type HttpListener,
  JwtVerifier,
  McpServer,
  Principal,
  RequestScoped,
  RequireScopes,
  Tool,
} from '../src/index.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

const ISSUER = 'http://127.0.0.1/issuer';
let jwksServer: Server;
let listener: HttpListener;
let sign: (
  claims: Record<string, unknown>,
  options?: { expiresIn?: string | number; audience?: string; key?: 'trusted' | 'rogue' },
) => Promise<string>;

@RequestScoped()
class Audit {
  constructor(readonly principal: Principal) {}
}

class Repo {
  @IsString()
  name!: string;
}

@McpServer({ name: 'secured', version: '1.0.0' })
class SecuredServer {
  constructor(readonly audit: Audit) {}

  @Tool({ description: 'who am I' })
  whoami(ctx: Context) {
    return {
      client: ctx.principal?.clientId,
      scopes: ctx.principal?.scopes,
      token: ctx.principal?.token,
      injected: this.audit.principal?.clientId,
    };
  }

  @RequireScopes('repo:write')
  @Tool({ description: 'create a repository' })
  create_repo(input: Repo) {
    return `created ${input.name}`;
  }
}

beforeAll(async () => {
  const trusted = await generateKeyPair('RS256');
  const rogue = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(trusted.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  // A real JWKS endpoint on loopback: the verifier fetches it like it would an authorization server's.
  jwksServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;

  const app = createMcpApp(SecuredServer);
  // Bind first on a free port, then the resource URL is known: restart with auth on that port.
  const probe = await app.listenHttp({ port: 0 });
  const { port } = new URL(probe.url);
  await probe.close();
  const resource = `http://127.0.0.1:${port}/mcp`;
  listener = await app.listenHttp({
    port: Number(port),
    auth: {
      verifier: new JwtVerifier({ issuer: ISSUER, audience: resource, jwksUri }),
      resource,
      authorizationServers: [ISSUER],
      scopesSupported: ['repo:read', 'repo:write'],
    },
  });
  sign = async (claims, options = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(options.audience ?? resource)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(options.key === 'rogue' ? rogue.privateKey : trusted.privateKey);
});

afterAll(async () => {
  await listener?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
});

function challenge(res: { headers: Record<string, string | string[] | undefined> }): string {
  return String(res.headers['www-authenticate'] ?? '');
}

describe('OAuth 2.1 resource server', () => {
  it('serves Protected Resource Metadata (RFC 9728) at the path-inserted well-known URL', async () => {
    const res = await rawHttp(listener.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'), { method: 'GET' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      resource: listener.url,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['repo:read', 'repo:write'],
    });
  });

  it('answers a request without a token 401 with WWW-Authenticate naming the metadata', async () => {
    const res = await rawHttp(listener.url, { headers: JSON_HEADERS, body: INITIALIZE });
    expect(res.status).toBe(401);
    expect(challenge(res)).toBe(`Bearer resource_metadata="${listener.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}"`);
  });

  it('refuses expired, wrongly signed and other-audience tokens with error="invalid_token"', async () => {
    const cases = [
      [await sign({ sub: 'u1' }, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), 'the token has expired'],
      [await sign({ sub: 'u1' }, { key: 'rogue' }), 'the token could not be verified'],
      [await sign({ sub: 'u1' }, { audience: 'https://other.example.com/mcp' }), 'the token\'s "aud" claim is not accepted'],
    ] as const;
    for (const [token, reason] of cases) {
      const res = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` }, body: INITIALIZE });
      expect(res.status).toBe(401);
      expect(challenge(res)).toContain('error="invalid_token"');
      expect(challenge(res)).toContain(`error_description="${reason.replace(/"/g, '')}"`);
    }
  });

  it('never accepts a token from the query string', async () => {
    const token = await sign({ sub: 'u1' });
    const res = await rawHttp(`${listener.url}?access_token=${token}`, { headers: JSON_HEADERS, body: INITIALIZE });
    expect(res.status).toBe(400);
    expect(challenge(res)).toContain('error="invalid_request"');
  });

  async function connect(scope: string, modern: boolean) {
    const token = await sign({ sub: 'user-1', client_id: 'cli', scope });
    const client = new Client({ name: 'auth-test', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return { client, token };
  }

  for (const modern of [false, true]) {
    it(`hands the verified principal (without the token) to handlers and DI (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
      const { client } = await connect('repo:read', modern);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.structuredContent).toEqual({ client: 'cli', scopes: ['repo:read'], token: 'redacted', injected: 'cli' });
      await client.close();
    });

    it(`hides tools needing scopes the token lacks, and answers with them when present (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
      const reader = await connect('repo:read', modern);
      expect((await reader.client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
      await reader.client.close();
      const writer = await connect('repo:read repo:write', modern);
      expect((await writer.client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'create_repo']);
      expect((await writer.client.callTool({ name: 'create_repo', arguments: { name: 'x' } })).content).toEqual([
        { type: 'text', text: 'created x' },
      ]);
      await writer.client.close();
    });
  }

  it('answers a call needing a missing scope 403 insufficient_scope naming the scopes (step-up)', async () => {
    const token = await sign({ sub: 'user-1', client_id: 'cli', scope: 'repo:read' });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
    const init = await rawHttp(listener.url, { headers, body: INITIALIZE });
    const session = init.headers['mcp-session-id'] as string;
    const res = await rawHttp(listener.url, {
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_repo', arguments: { name: 'x' } } }),
    });
    expect(res.status).toBe(403);
    expect(challenge(res)).toContain('error="insufficient_scope", scope="repo:write"');
  });

  it('binds a session to its owner: another caller presenting the id gets 404', async () => {
    const alice = await sign({ sub: 'alice', client_id: 'cli', scope: 'repo:read' });
    const mallory = await sign({ sub: 'mallory', client_id: 'cli', scope: 'repo:read' });
    const init = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, authorization: `Bearer ${alice}` }, body: INITIALIZE });
    const session = init.headers['mcp-session-id'] as string;
    const hijack = await rawHttp(listener.url, {
      headers: { ...JSON_HEADERS, authorization: `Bearer ${mallory}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
  });
});
