import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsArray, IsInt, IsOptional, IsString } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArmatureBuildError, type BuildProblem, createMcpApp, Field, type HttpListener, McpServer, Tool } from '../src/index.js';
import { modernRpc } from './support/modern-rpc.js';

class LookupInput {
  @Field({ description: 'Region to route to', header: 'Region' })
  @IsString()
  region!: string;

  @Field({ description: 'Priority', header: 'Priority' })
  @IsOptional()
  @IsInt()
  priority?: number;

  @Field('What to look up')
  @IsString()
  query!: string;
}

const ran: unknown[] = [];

@McpServer({ name: 'headers', version: '1.0.0' })
class HeaderServer {
  @Tool({ description: 'Looks something up in a region' })
  lookup(input: LookupInput) {
    ran.push(input);
    return `${input.query} in ${input.region} (priority ${input.priority ?? 'none'})`;
  }

  @Tool({
    description: 'The same with a hand-written schema',
    inputSchema: {
      type: 'object',
      properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } },
      required: ['tenant'],
    },
  })
  raw(input: { tenant: string }) {
    return `tenant ${input.tenant}`;
  }
}

/** One raw 2026-07-28 tools/call over HTTP with the standard headers and `extra` headers. */
async function call(url: string, name: string, args: Record<string, unknown>, extra: Record<string, string>) {
  const { status, body } = await modernRpc(url, 'tools/call', { name, arguments: args }, {}, undefined, extra);
  const content = body.result?.content as Array<{ text: string }> | undefined;
  return { status, id: body.id, text: content?.[0]?.text, error: body.error };
}

const base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('tool parameters mirrored in headers (x-mcp-header, SEP-2243)', () => {
  let listener: HttpListener;
  const refused: string[] = [];

  beforeAll(async () => {
    const app = createMcpApp(HeaderServer);
    app.onEvent((event) => {
      if (event.event === 'refused') refused.push(event.reason);
    });
    listener = await app.listenHttp({ port: 0 });
  });
  afterAll(async () => {
    await listener?.close();
  });

  it('advertises the header name on the property', async () => {
    const client = new Client({ name: 'lister', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const { tools } = await client.listTools();
    await client.close();
    const lookup = tools.find((t) => t.name === 'lookup')?.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect([lookup.region?.['x-mcp-header'], lookup.priority?.['x-mcp-header'], lookup.query?.['x-mcp-header']]).toEqual([
      'Region',
      'Priority',
      undefined,
    ]);
  });

  it('serves the official client on 2026-07-28, which sends the headers itself', async () => {
    const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await client.listTools(); // the client learns which parameters travel in headers
    const result = await client.callTool({ name: 'lookup', arguments: { region: 'Zürich', priority: 2, query: 'maps' } });
    await client.close();
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe('maps in Zürich (priority 2)');
  });

  it('accepts headers that repeat the body, plain or Base64, and integers as numbers', async () => {
    const args = { region: 'eu-west', priority: 42, query: 'q' };
    expect(await call(listener.url, 'lookup', args, { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Priority': '42' })).toMatchObject({
      status: 200,
      text: 'q in eu-west (priority 42)',
    });
    const accented = { region: 'Zürich', query: 'q' };
    expect(await call(listener.url, 'lookup', accented, { 'mcp-param-region': base64('Zürich') })).toMatchObject({ status: 200 });
    // Without the =?base64?...?= wrapper a value is literal, even if it looks like Base64.
    expect(await call(listener.url, 'lookup', { region: 'SGVsbG8=', query: 'q' }, { 'Mcp-Param-Region': 'SGVsbG8=' })).toMatchObject({
      status: 200,
    });
    // A parameter absent from the body needs no header (priority is optional).
    expect(await call(listener.url, 'lookup', { region: 'x', query: 'q' }, { 'Mcp-Param-Region': 'x' })).toMatchObject({ status: 200 });
    expect(await call(listener.url, 'raw', { tenant: 'acme' }, { 'Mcp-Param-Tenant': 'acme' })).toMatchObject({ text: 'tenant acme' });
  });

  it('refuses a missing, different or badly encoded header with 400 and -32020 before the tool runs', async () => {
    ran.length = 0;
    refused.length = 0;
    const args = { region: 'eu-west', query: 'q' };
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'the arguments carry a value its Mcp-Param-Region header must repeat, and the header is missing'],
      [{ 'Mcp-Param-Region': 'us-east' }, 'Mcp-Param-Region does not carry the value the arguments give'],
      [{ 'Mcp-Param-Region': '=?base64?ZXUtd2VzdA?=' }, 'payload is not canonical Base64'], // padding missing
      [{ 'Mcp-Param-Region': '=?base64?ZXUt!!d2VzdA==?=' }, 'payload is not canonical Base64'], // not the alphabet
      [{ 'Mcp-Param-Region': '=?base64?/w==?=' }, 'payload is not canonical Base64 of UTF-8 text'], // not UTF-8
      [{ 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Priority': '7' }, ''], // a header for an absent value is not read
    ];
    for (const [headers, why] of cases) {
      const answer = await call(listener.url, 'lookup', args, headers);
      if (why === '') {
        expect(answer.status).toBe(200);
        continue;
      }
      expect(answer).toMatchObject({ status: 400, id: 1, error: { code: -32020 } });
      expect(answer.error?.message).toContain(why);
      expect(answer.error?.message).toContain('tool "lookup"');
    }
    const integer = await call(
      listener.url,
      'lookup',
      { ...args, priority: 5 },
      { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Priority': '5.0' },
    );
    expect(integer).toMatchObject({ status: 400, error: { code: -32020 } });
    expect(ran).toEqual([{ region: 'eu-west', query: 'q' }]);
    expect(refused).toEqual(Array(6).fill('header-mismatch'));
  });

  it('leaves 2025-11-25 sessions alone (the headers belong to 2026-07-28)', async () => {
    const client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const result = await client.callTool({ name: 'lookup', arguments: { region: 'eu', query: 'q' } });
    await client.close();
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe('q in eu (priority none)');
  });
});

describe('invalid header declarations stop the app at start-up (ARM180)', () => {
  function problemsOf(...classes: Array<new () => unknown>): BuildProblem[] {
    try {
      createMcpApp(classes);
    } catch (error) {
      if (error instanceof ArmatureBuildError) return [...error.problems];
      throw error;
    }
    return [];
  }

  it('names the method and the rule for each kind of mistake, all at once', () => {
    class OnArray {
      @Field({ description: 'tags', header: 'Tags' })
      @IsArray()
      @IsString({ each: true })
      tags!: string[];
    }
    class Twice {
      @Field({ description: 'a', header: 'Zone' })
      @IsString()
      a!: string;
      @Field({ description: 'b', header: 'zone' })
      @IsString()
      b!: string;
    }
    class Spaced {
      @Field({ description: 'a', header: 'My Zone' })
      @IsString()
      a!: string;
    }
    @McpServer({ name: 'bad', version: '1' })
    class Bad {
      @Tool({ description: 'array' })
      onArray(_input: OnArray) {}
      @Tool({ description: 'twice' })
      twice(_input: Twice) {}
      @Tool({ description: 'spaced' })
      spaced(_input: Spaced) {}
      @Tool({
        description: 'under items',
        inputSchema: { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } },
      })
      underItems(_input: unknown) {}
    }
    const problems = problemsOf(Bad);
    expect(problems.map((p) => [p.code, p.where])).toEqual([
      ['ARM180', 'Bad.onArray'],
      ['ARM180', 'Bad.twice'],
      ['ARM180', 'Bad.spaced'],
      ['ARM180', 'Bad.underItems'],
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('tags: x-mcp-header is only allowed on a string, integer or boolean property (this one is "array")'),
      expect.stringContaining('b: the header name "zone" is already used by a (names are case-insensitive)'),
      expect.stringContaining('a: x-mcp-header "My Zone" is not a header name'),
      expect.stringContaining('list.<items> declares x-mcp-header, which only a property reached through "properties" may'),
    ]);
    expect(problems[0]?.fix).toContain("header: 'Region'");
  });
});
