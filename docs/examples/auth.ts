import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthOptions,
  Context,
  createMcpApp,
  type ExecutionContext,
  type Guard,
  type HttpListener,
  InvalidTokenError,
  JwtVerifier,
  type McpApp,
  McpServer,
  Principal,
  Prompt,
  RequestScoped,
  RequireScopes,
  Resource,
  type TokenVerifier,
  Tool,
  UseGuards,
} from '@armature/core';
import { type AuthInfo, Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString } from 'class-validator';
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expectEqual } from './support/check.js';

// #region server
@RequestScoped() // built per call, so it can take the caller
export class AuditTrail {
  constructor(private readonly principal: Principal) {}

  entry(action: string) {
    return `${this.principal.clientId} (${String(this.principal.extra?.sub)}) ${action}`;
  }
}

@RequestScoped()
export class StaffOnly implements Guard {
  constructor(private readonly principal: Principal) {}

  canActivate(_context: ExecutionContext) {
    const claims = this.principal?.extra?.claims as { role?: string } | undefined;
    return claims?.role === 'staff';
  }
}

export class RepoInput {
  @IsString()
  name!: string;
}

@McpServer({ name: 'repos', version: '1.0.0' })
export class SecuredReposServer {
  constructor(private readonly audit: AuditTrail) {}

  @Tool({ description: 'Who is calling' })
  whoami(ctx: Context) {
    const { clientId, scopes, token, extra } = ctx.principal ?? {};
    return { clientId, scopes, token, subject: extra?.sub };
  }

  @RequireScopes('repo:write')
  @Tool({ description: 'Create a repository' })
  createRepo(input: RepoInput) {
    return this.audit.entry(`created ${input.name}`);
  }

  @UseGuards(StaffOnly)
  @Tool({ description: 'Lock every repository' })
  lockAll() {
    return this.audit.entry('locked everything');
  }
}
// #endregion

// #region options
export function authOptions(jwksUri: string): AuthOptions {
  const resource = 'https://mcp.example.com/mcp'; // the URL clients use to reach this server
  return {
    verifier: new JwtVerifier({
      issuer: 'https://auth.example.com',
      audience: resource, // tokens minted for another service are refused
      jwksUri, // the authorization server's keys, fetched and cached
    }),
    resource,
    authorizationServers: ['https://auth.example.com'],
    scopesSupported: ['repo:read', 'repo:write'],
    resourceName: 'Repositories',
  };
}
// #endregion

export const outputs: Record<string, string> = {
  'no-token': 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
  metadata: `{
  "resource": "https://mcp.example.com/mcp",
  "authorization_servers": [
    "https://auth.example.com"
  ],
  "bearer_methods_supported": [
    "header"
  ],
  "scopes_supported": [
    "repo:read",
    "repo:write"
  ],
  "resource_name": "Repositories"
}`,
  'invalid-token': `Bearer error="invalid_token", error_description="the token's aud claim is not accepted", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`,
  'insufficient-scope': `Bearer error="insufficient_scope", scope="repo:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`,
  whoami: `{
  "clientId": "cli-42",
  "scopes": [
    "repo:read"
  ],
  "token": "redacted",
  "subject": "ada"
}`,
};

async function listenWithRequiredScopes(app: McpApp, jwksUri: string): Promise<HttpListener> {
  // #region required-scopes
  const gated = await app.listenHttp({ port: 0, auth: { ...authOptions(jwksUri), requiredScopes: ['repo:read'] } });
  // #endregion
  return gated;
}

/** A stand-in authorization server: a key pair of our own and its JWKS served on 127.0.0.1. */
async function authorizationServer(): Promise<{ jwksUri: string; sign: Signer; close(): Promise<void> }> {
  // #region keys
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' }] };
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;

  // An access token as the authorization server would mint it (RFC 9068).
  const sign = (claims: Record<string, unknown>, options: { audience?: string; expiresAt?: string | number; key?: CryptoKey } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer('https://auth.example.com')
      .setAudience(options.audience ?? 'https://mcp.example.com/mcp')
      .setIssuedAt()
      .setExpirationTime(options.expiresAt ?? '5m')
      .sign(options.key ?? privateKey);
  // #endregion
  return { jwksUri, sign, close: () => closeServer(server) };
}

type Signer = (
  claims: Record<string, unknown>,
  options?: { audience?: string; expiresAt?: string | number; key?: CryptoKey },
) => Promise<string>;

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

// #region client
async function connect(url: string, token: string, modern: boolean): Promise<Client> {
  const client = new Client({ name: 'my-client', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  return client;
}
// #endregion

/** Page claims: the AuthInfo of JwtVerifier, its defaults, a custom TokenVerifier, httpHandler, prompts and resources. */
async function verifierDetails(): Promise<void> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] };
  const verifier = new JwtVerifier({ issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp', jwks });
  const token = (claims: Record<string, unknown>, exp: string | number = '5m') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setIssuer('https://auth.example.com')
      .setAudience('https://mcp.example.com/mcp')
      .setExpirationTime(exp)
      .sign(privateKey);
  const azp = await verifier.verify(await token({ sub: 'ada', azp: 'web-app', scp: ['a', 'b'] }));
  expectEqual(
    [
      azp.clientId,
      azp.scopes,
      typeof azp.expiresAt,
      azp.resource?.href,
      azp.extra?.sub,
      azp.extra?.iss,
      (azp.extra?.claims as { azp?: string } | undefined)?.azp,
    ],
    ['web-app', ['a', 'b'], 'number', 'https://mcp.example.com/mcp', 'ada', 'https://auth.example.com', 'web-app'],
    'AuthInfo from a JWT',
  );
  expectEqual((await verifier.verify(await token({ sub: 'ada' }))).clientId, 'ada', 'clientId falls back to sub');
  const skewed = await verifier.verify(await token({ sub: 'ada' }, Math.floor(Date.now() / 1000) - 10));
  expectEqual(skewed.clientId, 'ada', 'expired 10 s ago: within the 30 s tolerance');
  const hmac = await new SignJWT({ sub: 'ada' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('https://auth.example.com')
    .setAudience('https://mcp.example.com/mcp')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode('a shared secret that is long enough!!'));
  const refused = await verifier.verify(hmac).catch((error: Error) => `${error.name}: ${error.message}`);
  expectEqual(refused, 'InvalidTokenError: the token could not be verified', 'HMAC tokens are refused');

  // A TokenVerifier of your own, on httpHandler's web-standard face.
  class ApiKeys implements TokenVerifier {
    async verify(key: string): Promise<AuthInfo> {
      if (key !== 'key-123') throw new InvalidTokenError('unknown API key');
      // extra.sub names who is calling: sessions and per-client caps are bound to it.
      return { token: key, clientId: 'batch-job', scopes: ['reports'], extra: { sub: 'batch-job' } };
    }
  }
  @McpServer({ name: 'reports', version: '1.0.0' })
  class ReportsServer {
    @RequireScopes('reports:admin')
    @Prompt({ description: 'p' })
    adminPrompt() {
      return 'p';
    }
    @RequireScopes('reports:admin')
    @Resource({ uri: 'reports://admin', name: 'admin' })
    adminResource() {
      return 'r';
    }
  }
  const handler = createMcpApp(ReportsServer).httpHandler({
    auth: { verifier: new ApiKeys(), resource: 'https://reports.example.com/mcp', authorizationServers: ['https://auth.example.com'] },
  });
  try {
    const post = (body: string, key: string, session?: string) =>
      handler.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            ...JSON_HEADERS,
            host: '127.0.0.1', // a Request made in code has no Host header unless you give one
            authorization: `Bearer ${key}`,
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
          },
          body,
        }),
      );
    const wrong = await post(INITIALIZE, 'key-999');
    expectEqual(
      [wrong.status, wrong.headers.get('www-authenticate')?.includes('error_description="unknown API key"')],
      [401, true],
      'custom verifier',
    );
    const init = await post(INITIALIZE, 'key-123');
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const prompt = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'adminPrompt' } }),
      'key-123',
      session,
    );
    const read = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'reports://admin' } }),
      'key-123',
      session,
    );
    expectEqual([prompt.status, read.status], [403, 403], 'step-up covers prompts and resources');
    const completion = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'completion/complete',
        params: { ref: { type: 'ref/prompt', name: 'adminPrompt' }, argument: { name: 'topic', value: '' } },
      }),
      'key-123',
      session,
    );
    const answer = await completion.text();
    expectEqual(
      [completion.status, answer.includes('"code":-32602'), answer.includes('Unknown prompt: \\"adminPrompt\\"')],
      [200, true, true],
      'completion/complete gets no step-up: the prompt is unknown to this caller',
    );
  } finally {
    await handler.close();
  }
}

export async function main(): Promise<void> {
  await verifierDetails();
  const issuer = await authorizationServer();
  const app = createMcpApp(SecuredReposServer);
  const { jwksUri, sign } = issuer;
  // #region listen
  const listener = await app.listenHttp({ port: 0, auth: authOptions(jwksUri) });
  // #endregion
  try {
    // 401 without a token, naming the metadata.
    const anonymous = await fetch(listener.url, { method: 'POST', headers: JSON_HEADERS, body: INITIALIZE });
    expectEqual([anonymous.status, anonymous.headers.get('www-authenticate')], [401, outputs['no-token']], '401');
    expectEqual((await anonymous.json()).error, { code: -32001, message: 'Unauthorized: a bearer token is required' }, '401 body');

    const metadata = await fetch(listener.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'));
    expectEqual([metadata.status, await metadata.json()], [200, JSON.parse(outputs.metadata as string)], 'metadata');
    expectEqual(metadata.headers.get('cache-control'), 'max-age=3600', 'metadata caching');

    // Tokens that are refused.
    const other = await sign({ sub: 'ada', client_id: 'cli-42', scope: 'repo:read' }, { audience: 'https://other.example.com/mcp' });
    const wrongAudience = await fetch(listener.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${other}` },
      body: INITIALIZE,
    });
    expectEqual([wrongAudience.status, wrongAudience.headers.get('www-authenticate')], [401, outputs['invalid-token']], 'audience');
    const rogue = await generateKeyPair('ES256');
    const refusedTokens: Array<[string, string]> = [
      [await sign({ sub: 'ada' }, { expiresAt: Math.floor(Date.now() / 1000) - 120 }), 'the token has expired'],
      [await sign({ sub: 'ada' }, { key: rogue.privateKey }), 'the token could not be verified'],
      ['not-a-jwt', 'the token could not be verified'],
    ];
    for (const [token, reason] of refusedTokens) {
      const res = await fetch(listener.url, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        body: INITIALIZE,
      });
      expectEqual([res.status, res.headers.get('www-authenticate')?.includes(`error_description="${reason}"`)], [401, true], reason);
    }
    const inQuery = await fetch(`${listener.url}?access_token=${await sign({ sub: 'ada' })}`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: INITIALIZE,
    });
    expectEqual(
      [inQuery.status, inQuery.headers.get('www-authenticate')?.startsWith('Bearer error="invalid_request"')],
      [400, true],
      'never in the URL',
    );

    // The principal, on both revisions.
    const readToken = await sign({ sub: 'ada', client_id: 'cli-42', scope: 'repo:read' });
    for (const modern of [false, true]) {
      const client = await connect(listener.url, readToken, modern);
      try {
        expectEqual(client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25', 'revision');
        const who = await client.callTool({ name: 'whoami', arguments: {} });
        expectEqual(who.structuredContent, JSON.parse(outputs.whoami as string), 'whoami');
        expectEqual(
          (await client.listTools()).tools.map((t) => t.name),
          ['whoami'],
          'createRepo (scope) and lockAll (guard) are hidden from a reader',
        );
        // #region step-up
        const refused = await client.callTool({ name: 'createRepo', arguments: { name: 'site' } }).catch((error: unknown) => error);
        // refused instanceof InsufficientScopeError: 'Insufficient scope: required "repo:write"'
        // #endregion
        expectEqual(
          [refused instanceof InsufficientScopeError, (refused as Error).message],
          [true, 'Insufficient scope: required "repo:write"'],
          'the v2 client surfaces the 403',
        );
      } finally {
        await client.close();
      }
    }

    // Step-up: a call needing a scope the token lacks is 403.
    const init = await fetch(listener.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${readToken}` },
      body: INITIALIZE,
    });
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const stepUp = await fetch(listener.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${readToken}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'createRepo', arguments: { name: 'x' } } }),
    });
    expectEqual([stepUp.status, stepUp.headers.get('www-authenticate')], [403, outputs['insufficient-scope']], '403');
    expectEqual((await stepUp.json()).error, { code: -32001, message: 'Forbidden: this needs the scopes repo:write' }, '403 body');

    // A writer sees and uses createRepo; staff also get lockAll.
    const writer = await connect(listener.url, await sign({ sub: 'ada', client_id: 'cli-42', scope: 'repo:read repo:write' }), true);
    try {
      expectEqual(
        (await writer.listTools()).tools.map((t) => t.name),
        ['whoami', 'createRepo'],
        'writer',
      );
      const created = await writer.callTool({ name: 'createRepo', arguments: { name: 'site' } });
      expectEqual((created.content as Array<{ text: string }>)[0]?.text, 'cli-42 (ada) created site', 'Principal injected');
    } finally {
      await writer.close();
    }
    const staff = await connect(listener.url, await sign({ sub: 'grace', client_id: 'ops', scope: 'repo:read', role: 'staff' }), false);
    try {
      expectEqual(
        (await staff.listTools()).tools.map((t) => t.name),
        ['whoami', 'lockAll'],
        'staff',
      );
      const locked = await staff.callTool({ name: 'lockAll', arguments: {} });
      expectEqual((locked.content as Array<{ text: string }>)[0]?.text, 'ops (grace) locked everything', 'guard with Principal');
    } finally {
      await staff.close();
    }

    // A session belongs to whoever opened it.
    const mallory = await sign({ sub: 'mallory', client_id: 'cli-42', scope: 'repo:read' });
    const hijack = await fetch(listener.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${mallory}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expectEqual([hijack.status, (await hijack.json()).error], [404, { code: -32001, message: 'Session not found' }], 'bound session');
  } finally {
    await listener.close();
    await issuer.close();
  }

  // requiredScopes: every request needs them.
  const strict = await authorizationServer();
  const gated = await listenWithRequiredScopes(createMcpApp(SecuredReposServer), strict.jwksUri);
  try {
    const none = await fetch(gated.url, { method: 'POST', headers: JSON_HEADERS, body: INITIALIZE });
    expectEqual(
      none.headers.get('www-authenticate'),
      'Bearer scope="repo:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      'the 401 names the required scopes',
    );
    const token = await strict.sign({ sub: 'ada', client_id: 'cli-42', scope: 'repo:write' });
    const lacking = await fetch(gated.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: INITIALIZE,
    });
    expectEqual(
      [lacking.status, lacking.headers.get('www-authenticate')?.startsWith('Bearer error="insufficient_scope", scope="repo:read"')],
      [403, true],
      'a token without them is 403 on every request',
    );
  } finally {
    await gated.close();
    await strict.close();
  }
}
