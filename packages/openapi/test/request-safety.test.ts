import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Context, McpServer, Tool } from '@armature/core';
import { apiKeyHeader, OpenApiClient, type OpenApiOperation } from '@armature/openapi';
import { createTestingApp, type TestingApp } from '@armature/testing';
import { IsOptional, IsString } from 'class-validator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fitsTemplate } from '../src/path-template.js';

// The review's attacks on OpenAPI tools, re-run against a real API on 127.0.0.1 (base path
// /api/v2, key in x-api-key) and a second origin on 127.0.0.1 that must never see that key:
// a dot segment in a path parameter moving the call to another operation or out of the base
// path, and a redirect carrying the key to another origin.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export class OwnerInput {
  @IsString()
  ownerName!: string;
}

export class InfoInput {
  @IsString()
  a!: string;

  @IsString()
  b!: string;
}

export class MoveInput {
  @IsString()
  to!: string;

  @IsOptional()
  @IsString()
  status?: string;

  @IsOptional()
  @IsString()
  note?: string;
}

const OPERATIONS = {
  listOwnerPets: {
    operationId: 'listOwnerPets',
    method: 'GET',
    path: '/owners/{ownerName}/pets',
    parameters: [{ name: 'ownerName', in: 'path', field: 'ownerName' }],
    structured: false,
  },
  info: {
    operationId: 'info',
    method: 'GET',
    path: '/{a}/info/{b}',
    parameters: [
      { name: 'a', in: 'path', field: 'a' },
      { name: 'b', in: 'path', field: 'b' },
    ],
    structured: false,
  },
  // A template that itself climbs out of the base path (a hostile or broken document).
  climb: {
    operationId: 'climb',
    method: 'GET',
    path: '/../admin/{ownerName}',
    parameters: [{ name: 'ownerName', in: 'path', field: 'ownerName' }],
    structured: false,
  },
  moved: {
    operationId: 'moved',
    method: 'POST',
    path: '/moved',
    parameters: [
      { name: 'to', in: 'query', field: 'to' },
      { name: 'status', in: 'query', field: 'status' },
    ],
    body: 'note',
    structured: false,
  },
} satisfies Record<string, OpenApiOperation>;

export class HostileApi extends OpenApiClient {}

@McpServer({ name: 'hostile', version: '1.0.0' })
export class HostileServer {
  constructor(private readonly api: HostileApi) {}

  @Tool({ name: 'listOwnerPets', description: 'GET /owners/{ownerName}/pets' })
  listOwnerPets(input: OwnerInput, ctx: Context) {
    return this.api.call(OPERATIONS.listOwnerPets, input, ctx);
  }

  @Tool({ name: 'info', description: 'GET /{a}/info/{b}' })
  info(input: InfoInput, ctx: Context) {
    return this.api.call(OPERATIONS.info, input, ctx);
  }

  @Tool({ name: 'climb', description: 'GET /../admin/{ownerName}' })
  climb(input: OwnerInput, ctx: Context) {
    return this.api.call(OPERATIONS.climb, input, ctx);
  }

  @Tool({ name: 'moved', description: 'POST /moved?to=&status=: the API answers with the redirect these name' })
  moved(input: MoveInput, ctx: Context) {
    return this.api.call(OPERATIONS.moved, input, ctx);
  }
}

async function recordingServer(seen: Seen[], answer: (req: IncomingMessage, url: URL) => [number, Record<string, string>, string]) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const [status, headers, text] = answer(req, new URL(req.url ?? '/', 'http://x'));
      res.writeHead(status, headers);
      res.end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = async (server: Server) => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
};

const json = (value: unknown): [number, Record<string, string>, string] => [
  200,
  { 'content-type': 'application/json' },
  JSON.stringify(value),
];

let api: Server;
let elsewhere: Server;
let apiOrigin: string;
let elsewhereOrigin: string;
const seen: Seen[] = [];
const seenElsewhere: Seen[] = [];
let t: TestingApp;

beforeAll(async () => {
  ({ server: api, origin: apiOrigin } = await recordingServer(seen, (req, url) => {
    if (url.pathname === '/api/v2/pets') return json([{ id: 1, name: 'every pet of every owner' }]);
    if (url.pathname === '/') return json({ admin: 'the root of the host' });
    if (/^\/api\/v2\/owners\/[^/]+\/pets$/.test(url.pathname)) return json([{ id: 2, name: 'Rex' }]);
    if (url.pathname === '/api/v2/moved') {
      const to = url.searchParams.get('to') ?? '';
      return [Number(url.searchParams.get('status') ?? 302), { location: to }, ''];
    }
    if (url.pathname === '/api/v2/loop') return [302, { location: '/api/v2/loop' }, ''];
    if (url.pathname === '/api/v2/landed') return json({ landed: req.method, body: req.headers['content-length'] ?? null });
    return [404, { 'content-type': 'application/json' }, JSON.stringify({ message: `no route ${url.pathname}` })];
  }));
  ({ server: elsewhere, origin: elsewhereOrigin } = await recordingServer(seenElsewhere, () => json({ stolen: true })));
  t = await createTestingApp({ servers: [HostileServer] })
    .overrideProvider(HostileApi)
    .useValue(new OpenApiClient({ baseUrl: `${apiOrigin}/api/v2`, credentials: apiKeyHeader('x-api-key', 'secret-key') }))
    .compile();
});

afterAll(async () => {
  await t?.close();
  await close(api);
  await close(elsewhere);
});

afterEach(() => {
  seen.length = 0;
  seenElsewhere.length = 0;
});

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? '';

describe('a path parameter cannot move the call', () => {
  it('listOwnerPets {"ownerName": ".."} is refused before any request (it reached GET /api/v2/pets, another operation)', async () => {
    const result = await t.callTool('listOwnerPets', { ownerName: '..' });
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'listOwnerPets (GET /owners/{ownerName}/pets): the path parameter "ownerName" cannot be "..": ' +
        'a "." or ".." segment, in any spelling or encoding, would move the call to another path. Give one ownerName.',
    );
  });

  it('/{a}/info/{b} with a=".." and b=".." is refused (it reached GET / with the API key)', async () => {
    const result = await t.callTool('info', { a: '..', b: '..' });
    expect(seen).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('the path parameter "a" cannot be ".."');
  });

  it.each([
    '.',
    '..',
    '%2e',
    '%2E%2e',
    '.%2e',
    '%2e.',
    '%252e%252e',
    '%25252E.',
    '..%2f..',
    '..%2F',
    'a/../..',
    'a%2f..%2f..',
    '..\\..',
    '%5c..',
    '..;',
    '..;jsessionid=1',
    '...',
    '.. ',
    '..%00',
    '%c0%ae%c0%ae',
    '%e0%80%ae.',
    '\uff0e\uff0e',
    '\u2025',
    '%ef%bc%8e%ef%bc%8e',
    '',
  ])('refuses the path value %j', async (ownerName) => {
    const result = await t.callTool('listOwnerPets', { ownerName });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toMatch(/^listOwnerPets \(GET \/owners\/\{ownerName\}\/pets\): the path parameter "ownerName" cannot be /);
    expect(seen).toEqual([]);
  });

  it.each([
    ['Ann', '/api/v2/owners/Ann/pets'],
    ['.ann', '/api/v2/owners/.ann/pets'],
    ['a..b', '/api/v2/owners/a..b/pets'],
    ['group/project', '/api/v2/owners/group%2Fproject/pets'],
    ['100%', '/api/v2/owners/100%25/pets'],
    ['x?y#z', '/api/v2/owners/x%3Fy%23z/pets'],
  ])('sends the path value %j as one segment: %s', async (ownerName, path) => {
    const result = await t.callTool('listOwnerPets', { ownerName });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([`GET ${path}`]);
  });
});

describe('the built URL is checked against the template (defence in depth)', () => {
  it('a URL that left the template is a tool error, and nothing is sent', async () => {
    const result = await t.callTool('climb', { ownerName: 'ann' });
    expect(seen).toEqual([]);
    expect(textOf(result)).toBe(
      'climb (GET /../admin/{ownerName}): the request path "/api/admin/ann" does not fit /api/v2/../admin/{ownerName}, so nothing was sent. Give each path parameter one plain value.',
    );
  });

  const base = new URL('https://api.example.com/api/v2/');
  it.each([
    ['https://api.example.com/api/v2/owners/ann/pets', true],
    ['https://api.example.com/api/v2/owners/a%2F..%2Fb/pets', true],
    ['https://api.example.com/api/v2/pets', false],
    ['https://api.example.com/api/v2/owners//pets', false],
    ['https://api.example.com/api/v2/owners/a/b/pets', false],
    ['https://api.example.com/owners/ann/pets', false],
    ['https://api.example.com/api/v2/owners/ann/pets/', false],
    ['https://api.example.com:444/api/v2/owners/ann/pets', false],
    ['http://api.example.com/api/v2/owners/ann/pets', false],
    ['https://elsewhere.example.com/api/v2/owners/ann/pets', false],
  ])('%s fits /api/v2 + /owners/{ownerName}/pets: %s', (url, fits) => {
    expect(fitsTemplate(new URL(url), base, '/owners/{ownerName}/pets')).toBe(fits);
  });

  it('reads literal pieces of the template as the URL parser writes them', () => {
    expect(fitsTemplate(new URL('https://h/v1/a%20b/x/%7Bc%7D'), new URL('https://h/v1'), '/a b/{id}/%7Bc%7D')).toBe(true);
    expect(fitsTemplate(new URL('https://h/v1/caf%C3%A9/x'), new URL('https://h/v1'), '/café/{id}')).toBe(true);
  });
});

describe('redirects stay with the API', () => {
  it('a 302 to another origin is a tool error naming it, and that origin never sees the API key', async () => {
    const to = `${elsewhereOrigin}/steal`;
    const result = await t.callTool('moved', { to });
    expect(seenElsewhere).toEqual([]);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([`POST /api/v2/moved?to=${encodeURIComponent(to)}`]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `moved (POST /moved) answered HTTP 302 with a redirect to ${to}, another origin than the API's (${apiOrigin}): ` +
        "not followed, so the API's credentials stay with it. If the API moved, set baseUrl of its OpenApiClient to the new address.",
    );
  });

  it.each([301, 303, 307, 308])('a %i to another origin is refused too', async (status) => {
    const result = await t.callTool('moved', { to: `${elsewhereOrigin}/steal`, status: String(status) });
    expect(result.isError).toBe(true);
    expect(seenElsewhere).toEqual([]);
  });

  it.each([
    ['protocol-relative', (host: string) => `//${host}/steal`],
    ['backslash', (host: string) => `/\\${host}/steal`],
    ['userinfo', (host: string) => `http://user@${host}/steal`],
  ])('a %s Location that resolves to another origin is refused too', async (_kind, location) => {
    const result = await t.callTool('moved', { to: location(new URL(elsewhereOrigin).host) });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('another origin');
    expect(seenElsewhere).toEqual([]);
  });

  it('a redirect from http to https on the same host is another origin: refused', async () => {
    const to = apiOrigin.replace('http:', 'https:');
    const result = await t.callTool('moved', { to: `${to}/api/v2/landed` });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`answered HTTP 302 with a redirect to ${to}/api/v2/landed, another origin`);
  });

  it('a redirect within the origin is followed with the credentials (303: as GET without the body; 307: as sent)', async () => {
    const see = await t.callTool('moved', { to: '/api/v2/landed', status: '303', note: 'hello' });
    expect(see.isError, textOf(see)).toBeFalsy();
    const kept = await t.callTool('moved', { to: `${apiOrigin}/api/v2/landed`, status: '307', note: 'hello' });
    expect(kept.isError, textOf(kept)).toBeFalsy();
    expect(seen.map(({ method, url, headers, body }) => [method, new URL(url, 'http://x').pathname, headers['x-api-key'], body])).toEqual([
      ['POST', '/api/v2/moved', 'secret-key', '"hello"'],
      ['GET', '/api/v2/landed', 'secret-key', ''],
      ['POST', '/api/v2/moved', 'secret-key', '"hello"'],
      ['POST', '/api/v2/landed', 'secret-key', '"hello"'],
    ]);
  });

  it('a key in the query of the base URL goes to the API, and not to another origin a redirect names', async () => {
    const keyed = await createTestingApp({ servers: [HostileServer] })
      .overrideProvider(HostileApi)
      .useValue(new OpenApiClient({ baseUrl: `${apiOrigin}/api/v2?api_key=query-key` }))
      .compile();
    try {
      const sent = await keyed.callTool('listOwnerPets', { ownerName: 'ann' });
      expect(sent.isError, textOf(sent)).toBeFalsy();
      const moved = await keyed.callTool('moved', { to: `${elsewhereOrigin}/steal` });
      expect(moved.isError).toBe(true);
      expect(seen.map(({ url }) => url)).toEqual([
        '/api/v2/owners/ann/pets?api_key=query-key',
        `/api/v2/moved?api_key=query-key&to=${encodeURIComponent(`${elsewhereOrigin}/steal`)}`,
      ]);
      expect(seenElsewhere).toEqual([]);
    } finally {
      await keyed.close();
    }
  });

  it('a redirect loop within the origin stops after 5 redirects, naming the last', async () => {
    const result = await t.callTool('moved', { to: '/api/v2/loop' });
    expect(result.isError).toBe(true);
    expect(seen).toHaveLength(6);
    expect(textOf(result)).toBe(
      `moved (POST /moved) was redirected more than 5 times, the last time with HTTP 302 to /api/v2/loop: not followed further.`,
    );
  });
});
