import { connect } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  createMcpApp,
  type HttpListener,
  type ListenHttpOptions,
  McpServer,
  type ServerCardOptions,
  Tool,
  UseGuards,
} from '../src/index.js';

const DENY = { canActivate: () => false };

@McpServer({ name: 'weather', version: '1.2.0', title: 'Weather' })
class WeatherServer {
  @Tool({ description: 'Forecast for a city' })
  forecast() {
    return 'sunny';
  }

  @UseGuards(DENY)
  @Tool({ description: 'Guarded' })
  guardedPurge() {
    return 'purged';
  }

  @Tool({ description: 'Hidden by tag', tags: ['admin'] })
  hiddenReset() {
    return 'reset';
  }
}

const CARD: ServerCardOptions = {
  name: 'io.github.acme/weather',
  description: 'Forecasts for any city',
  websiteUrl: 'https://acme.example/weather',
  repository: { url: 'https://github.com/acme/weather', source: 'github' },
  url: 'https://mcp.acme.example/mcp',
};

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function listen(options: ListenHttpOptions = { serverCard: CARD }): Promise<{ url: string; port: number }> {
  const listener = await createMcpApp(WeatherServer, { hiddenTags: ['admin'] }).listenHttp({ port: 0, ...options });
  open.push(listener);
  return { url: listener.url, port: Number(new URL(listener.url).port) };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request written byte for byte on a socket (the path exactly as given: no URL normalises it), answered or closed. */
function raw(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${path}`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const entries = lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]);
      resolve({ status: Number(statusLine.split(' ')[1]), headers: Object.fromEntries(entries), body });
    });
    const all = { host: `127.0.0.1:${port}`, connection: 'close', ...headers };
    socket.write(
      `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    );
  });
}

describe('the server card route (listenHttp on 127.0.0.1)', () => {
  it('answers GET <endpoint>/server-card with the SEP-2127 card, its media type, CORS, caching and an ETag, without a token', async () => {
    const verifier = { verify: async () => Promise.reject(new Error('no token is valid here')) };
    const { port } = await listen({
      serverCard: CARD,
      auth: { verifier, resource: 'http://127.0.0.1/mcp', authorizationServers: ['http://127.0.0.1/issuer'] },
    });
    const answer = await raw(port, 'GET', '/mcp/server-card', { accept: 'application/mcp-server-card+json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/mcp-server-card+json');
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-expose-headers']).toBe('ETag');
    expect(answer.headers['cache-control']).toBe('public, max-age=3600');
    expect(answer.headers.etag).toMatch(/^"[\w-]{43}"$/);
    const card = JSON.parse(answer.body);
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'io.github.acme/weather',
      version: '1.2.0',
      description: 'Forecasts for any city',
      title: 'Weather',
      websiteUrl: 'https://acme.example/weather',
      repository: { url: 'https://github.com/acme/weather', source: 'github' },
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://mcp.acme.example/mcp',
          supportedProtocolVersions: expect.arrayContaining(['2025-11-25', '2026-07-28']),
        },
      ],
    });
    // The draft lists no primitives: nothing of any tool, guarded, hidden or public, is told.
    for (const word of ['forecast', 'guardedPurge', 'hiddenReset', 'admin', 'tools']) expect(answer.body).not.toContain(word);
    // The MCP endpoint itself still asks for the token.
    expect((await raw(port, 'POST', '/mcp', { 'content-type': 'application/json', 'content-length': '2' })).status).toBe(401);

    const again = await raw(port, 'GET', '/mcp/server-card', { 'if-none-match': answer.headers.etag as string });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect((await raw(port, 'GET', '/mcp/server-card', { 'if-none-match': '"stale"' })).status).toBe(200);
  }, 30_000);

  it('answers GET only: other methods 405 with Allow, OPTIONS the CORS preflight with no card', async () => {
    const { port } = await listen();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD']) {
      const answer = await raw(port, method, '/mcp/server-card', { 'content-length': '0' });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow, method).toBe('GET');
      expect(answer.body, method).toBe('');
    }
    const preflight = await raw(port, 'OPTIONS', '/mcp/server-card', { origin: 'http://localhost:5173' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET');
    expect(preflight.body).toBe('');
  }, 30_000);

  it("stays under the app's Host and Origin checks (DNS rebinding)", async () => {
    const { port } = await listen();
    expect((await raw(port, 'GET', '/mcp/server-card', { host: 'evil.example' })).status).toBe(403);
    expect((await raw(port, 'GET', '/mcp/server-card', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await raw(port, 'GET', '/mcp/server-card', { origin: 'http://localhost:5173' })).status).toBe(200);
  }, 30_000);

  it('serves the exact path only: dot segments, encodings, slashes and other paths are 404, the card is off by default', async () => {
    const { port } = await listen();
    for (const path of [
      '/.well-known/../mcp/server-card',
      '/.well-known/../mcp',
      '/mcp/../mcp/server-card',
      '/mcp/./server-card',
      '/mcp/server-card/',
      '//mcp/server-card',
      '/mcp/server%2Dcard',
      '/mcp%2Fserver-card',
      '/mcp/server-card%00',
      '/.well-known/mcp/server-card',
      '/server-card',
    ]) {
      const answer = await raw(port, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('io.github.acme');
    }
    expect((await raw(port, 'GET', '/mcp/server-card?x=1')).status).toBe(200);
    const off = await listen({});
    expect((await raw(off.port, 'GET', '/mcp/server-card')).status).toBe(404);
  }, 30_000);

  it('refuses huge headers (431) and goes on serving the card and the endpoint', async () => {
    const { port, url } = await listen();
    const huge = await raw(port, 'GET', '/mcp/server-card', { 'x-pad': 'a'.repeat(100_000) });
    expect(huge.status).toBe(431);
    expect(huge.body).not.toContain('io.github.acme');
    expect((await raw(port, 'GET', '/mcp/server-card')).status).toBe(200);
    const client = new Client({ name: 'armature-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['forecast']);
    await client.close();
  }, 30_000);

  it('is counted by the endpoint-wide rateLimit, per client address', async () => {
    const { port } = await listen({ serverCard: CARD, rateLimit: { limit: 1, windowMs: 60_000 } });
    expect((await raw(port, 'GET', '/mcp/server-card')).status).toBe(200);
    const limited = await raw(port, 'GET', '/mcp/server-card');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('refuses a card the draft would refuse at start-up, every field at once (ARM187)', async () => {
    const bad = { name: 'weather', description: 'x'.repeat(101), websiteUrl: 'javascript:alert(1)', url: 'ftp://host/mcp' };
    const error = await listen({ serverCard: bad }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArmatureBuildError);
    const problems = (error as ArmatureBuildError).problems;
    expect(problems.map((p) => p.code)).toEqual(['ARM187', 'ARM187', 'ARM187', 'ARM187']);
    expect(problems.map((p) => p.message.split(' is ')[0])).toEqual([
      "the server card's name",
      "the server card's description",
      "the server card's websiteUrl",
      "the server card's url",
    ]);
  });
});
