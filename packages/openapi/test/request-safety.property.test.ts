import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Context, McpServer, Tool } from '@armature/core';
import { apiKeyHeader, OpenApiClient, type OpenApiOperation } from '@armature/openapi';
import { createTestingApp, type TestingApp } from '@armature/testing';
import { IsString } from 'class-validator';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Property-based: whatever a caller puts in a path, query or header parameter, the request that
// reaches the API (a real one on 127.0.0.1) stays on the operation's template under the base
// path, each path value in its own segment and read back as given, the query value read back as
// given, and no header the caller did not name (no CR/LF injection) reaches the wire. A value that
// cannot be sent that way is a tool error of ours saying why, and then nothing is sent.

export class AnyInput {
  @IsString()
  owner!: string;

  @IsString()
  pet!: string;

  @IsString()
  q!: string;

  @IsString()
  note!: string;
}

const OPERATION = {
  operationId: 'anyValues',
  method: 'GET',
  path: '/owners/{owner}/pets/{pet}',
  parameters: [
    { name: 'owner', in: 'path', field: 'owner' },
    { name: 'pet', in: 'path', field: 'pet' },
    { name: 'q', in: 'query', field: 'q' },
    { name: 'X-Note', in: 'header', field: 'note' },
  ],
  structured: false,
} satisfies OpenApiOperation;

export class AnyApi extends OpenApiClient {}

@McpServer({ name: 'any-values', version: '1.0.0' })
export class AnyValuesServer {
  constructor(private readonly api: AnyApi) {}

  @Tool({ name: 'anyValues', description: 'GET /owners/{owner}/pets/{pet}?q= with an X-Note header' })
  anyValues(input: AnyInput, ctx: Context) {
    return this.api.call(OPERATION, input, ctx);
  }
}

interface Seen {
  url: string;
  rawHeaders: string[];
}

let api: Server;
const seen: Seen[] = [];
let t: TestingApp;

beforeAll(async () => {
  api = createServer((req: IncomingMessage, res) => {
    seen.push({ url: req.url ?? '', rawHeaders: req.rawHeaders });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v2`;
  t = await createTestingApp({ servers: [AnyValuesServer] })
    .overrideProvider(AnyApi)
    .useValue(new OpenApiClient({ baseUrl, credentials: apiKeyHeader('x-api-key', 'secret-key') }))
    .compile();
});

afterAll(async () => {
  await t?.close();
  api.closeAllConnections();
  await new Promise((done) => api.close(done));
});

/** Pieces attackers build paths and headers from, in their usual spellings. */
const PIECES = [
  '.',
  '..',
  '%2e',
  '%2E',
  '%252e',
  '%25',
  '/',
  '%2f',
  '%2F',
  '\\',
  '%5c',
  ';',
  '?',
  '#',
  '%00',
  '\0',
  ' ',
  '\t',
  '\r',
  '\n',
  '%0d%0a',
  '\r\nX-Injected: 1',
  '\uff0e',
  '\u2025',
  '%c0%ae',
  '%ef%bc%8e',
  'a',
  'é',
  '€',
  '\ud800',
];
const hostile = fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((pieces) => pieces.join(''));
const value = fc.oneof(hostile, fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme-ascii', maxLength: 12 }));

/** The header names a request may carry: fetch's own, and those the operation and client send. */
const ALLOWED_HEADERS = new Set([
  'host',
  'connection',
  'accept',
  'accept-language',
  'accept-encoding',
  'sec-fetch-mode',
  'user-agent',
  'x-api-key',
  'x-note',
]);

/** A string as UTF-8 carries it: a lone surrogate becomes U+FFFD. */
const wellFormed = (text: string) => text.replace(/\p{Cs}/gu, '\ufffd');

/** What a header value reads as on the server: HTTP drops the blanks around it. */
const onTheWire = (header: string) => header.replace(/^[ \t]+|[ \t]+$/g, '');

describe('any parameter value', () => {
  it('stays within the template and base path, reads back as given, and injects no header', async () => {
    await fc.assert(
      fc.asyncProperty(value, value, value, value, async (owner, pet, q, note) => {
        seen.length = 0;
        const result = await t.callTool('anyValues', { owner, pet, q, note });
        const text = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? '';
        if (result.isError) {
          // Refused by us, saying which parameter and why; nothing reached the API.
          expect(text).toMatch(
            /^anyValues \(GET \/owners\/\{owner\}\/pets\/\{pet\}\): the (path parameter "(owner|pet)" cannot be |header parameter "X-Note" cannot hold )/,
          );
          expect(seen).toEqual([]);
          return;
        }
        expect(seen).toHaveLength(1);
        const request = seen[0] as Seen;
        const [path, search = ''] = request.url.split('?') as [string, string?];
        const match = /^\/api\/v2\/owners\/([^/]+)\/pets\/([^/]+)$/.exec(path);
        expect(match, path).not.toBeNull();
        expect(decodeURIComponent(match?.[1] ?? '')).toBe(wellFormed(owner));
        expect(decodeURIComponent(match?.[2] ?? '')).toBe(wellFormed(pet));
        expect(new URLSearchParams(search).getAll('q')).toEqual([wellFormed(q)]);
        const names = request.rawHeaders.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase());
        expect(names.filter((name) => !ALLOWED_HEADERS.has(name))).toEqual([]);
        expect(names.filter((name) => name === 'x-note')).toHaveLength(1);
        expect(request.rawHeaders[request.rawHeaders.findIndex((name) => name.toLowerCase() === 'x-note') + 1]).toBe(onTheWire(note));
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});
