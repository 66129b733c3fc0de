import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsInt, IsString, Min, MinLength } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, Field, type HttpListener, McpServer, Prompt, Tool } from '../src/index.js';
import { connectInMemory } from './support/clients.js';
import { modernRpc } from './support/modern-rpc.js';

class Account {
  @Field('Account name')
  @IsString()
  @MinLength(2)
  name!: string;

  @Field('Number of seats')
  @IsInt()
  @Min(1)
  seats = 1;
}

const runs: Record<string, number> = {};

@McpServer({ name: 'client-features', version: '1.0.0' })
class FeatureServer {
  @Tool({ description: 'asks which account to charge' })
  async charge(ctx: Context) {
    runs.charge = (runs.charge ?? 0) + 1;
    const answer = await ctx.elicit('Which account should be charged?', Account);
    if (answer.action !== 'accept') return `nothing charged (${answer.action})`;
    return `charged ${answer.content.name} for ${answer.content.seats} seat(s), instance=${answer.content instanceof Account}`;
  }

  @Tool({ description: 'two questions, then the model' })
  async interview(ctx: Context) {
    const first = await ctx.elicit('First?', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    const second = await ctx.elicit('Second?', { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] });
    const reply = await ctx.sample(`combine ${JSON.stringify(first)} and ${JSON.stringify(second)}`, { maxTokens: 20 });
    const roots = await ctx.roots();
    return { first, second, reply: reply.content.type === 'text' ? reply.content.text : '?', roots: roots.map((r) => r.uri) };
  }
}

const NAME_FORM = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

@McpServer({ name: 'named-questions', version: '1.0.0' })
class NamedQuestions {
  @Tool({ description: 'asks three named questions at once' })
  async together(ctx: Context) {
    runs.together = (runs.together ?? 0) + 1;
    const [who, style, where] = await Promise.all([
      ctx.elicit('Who?', NAME_FORM, { key: 'who' }),
      ctx.sample('Which style?', { maxTokens: 5, key: 'style' }),
      ctx.roots({ key: 'where' }),
    ]);
    const text = style.content.type === 'text' ? style.content.text : '?';
    return `${who.action === 'accept' ? String(who.content.name) : who.action} / ${text} / ${where.map((r) => r.uri).join(',')}`;
  }

  @Tool({ description: 'names two questions alike' })
  async twice(ctx: Context) {
    await ctx.elicit('One?', NAME_FORM, { key: 'same' });
    await ctx.elicit('Two?', NAME_FORM, { key: 'same' });
    return 'unreachable';
  }

  @Tool({ description: 'what the client declared' })
  declared(ctx: Context) {
    return { capabilities: ctx.clientCapabilities ?? null };
  }

  @Prompt({ name: 'asking_prompt', description: 'asks the user before it renders' })
  async askingPrompt(ctx: Context) {
    const outcome = await ctx.elicit('Context?', NAME_FORM, { key: 'context' });
    return `Rendered for ${outcome.action === 'accept' ? String(outcome.content.name) : outcome.action}`;
  }
}

/** A client that answers elicitation from a queue, sampling by echo, roots with one folder. */
function answeringClient(answers: Array<Record<string, unknown>>, options: { modern: boolean; capabilities?: Record<string, unknown> }) {
  const seen: Array<{ message: string; schema: unknown }> = [];
  const client = new Client(
    { name: 'answering', version: '1' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {} }, sampling: {}, roots: {} },
      ...(options.modern ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  // The client refuses handlers for capabilities it did not declare.
  if (options.capabilities === undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      seen.push({ message: params.message, schema: params.requestedSchema });
      return (answers.shift() ?? { action: 'cancel' }) as never;
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const first = request.params.messages[0]?.content as { text?: string };
      return { role: 'assistant', model: 'echo', content: { type: 'text', text: `echo: ${first.text}` } } as never;
    });
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  }
  return { client, seen };
}

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
  for (const key of Object.keys(runs)) delete runs[key];
  reported.length = 0;
});

const reported: unknown[] = [];

async function connect(modern: boolean, answers: Array<Record<string, unknown>>, capabilities?: Record<string, unknown>) {
  const app = createMcpApp([FeatureServer, NamedQuestions], { onError: (error) => void reported.push(error) });
  const listener: HttpListener = await app.listenHttp({ port: 0 });
  const { client, seen } = answeringClient(answers, { modern, capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  cleanup.push(
    () => listener.close(),
    () => client.close(),
  );
  expect(client.getNegotiatedProtocolVersion()).toBe(modern ? '2026-07-28' : '2025-11-25');
  return { client, seen };
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0]?.text;

describe.each([
  ['2025-11-25 (server-to-client requests)', false],
  ['2026-07-28 (input_required and retry)', true],
])('the same handler code on %s', (_label, modern) => {
  it('elicits a DTO: the form is its restricted schema, the answer a validated instance', async () => {
    const { client, seen } = await connect(modern, [{ action: 'accept', content: { name: 'acme', seats: 3 } }]);
    const result = await client.callTool({ name: 'charge', arguments: {} });
    expect(textOf(result)).toBe('charged acme for 3 seat(s), instance=true');
    expect(seen).toEqual([
      {
        message: 'Which account should be charged?',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 2, description: 'Account name' },
            seats: { type: 'integer', minimum: 1, description: 'Number of seats', default: 1 },
          },
          required: ['name'],
        },
      },
    ]);
    // 2026 runs the method again from the top once the answer is there.
    expect(runs.charge).toBe(modern ? 2 : 1);
  });

  it('passes decline and cancel through, and refuses an invalid answer with field lines', async () => {
    const { client } = await connect(modern, [
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: { name: 'x', seats: 0 } },
    ]);
    expect(textOf(await client.callTool({ name: 'charge', arguments: {} }))).toBe('nothing charged (decline)');
    expect(textOf(await client.callTool({ name: 'charge', arguments: {} }))).toBe('nothing charged (cancel)');
    const invalid = await client.callTool({ name: 'charge', arguments: {} });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toBe(
      'The answer to "Which account should be charged?" is invalid:\nname: must be longer than or equal to 2 characters\nseats: must not be less than 1',
    );
  });

  it('chains several questions, sampling and roots in one call', async () => {
    const { client } = await connect(modern, [
      { action: 'accept', content: { a: 'x' } },
      { action: 'accept', content: { b: 2 } },
    ]);
    const result = await client.callTool({ name: 'interview', arguments: {} });
    expect(result.structuredContent).toEqual({
      first: { action: 'accept', content: { a: 'x' } },
      second: { action: 'accept', content: { b: 2 } },
      reply: 'echo: combine {"action":"accept","content":{"a":"x"}} and {"action":"accept","content":{"b":2}}',
      roots: ['file:///work'],
    });
  });

  it('asks questions made together in one round, each under the key its handler named', async () => {
    const { client, seen } = await connect(modern, [{ action: 'accept', content: { name: 'ada' } }]);
    const result = await client.callTool({ name: 'together', arguments: {} });
    expect(textOf(result)).toBe('ada / echo: Which style? / file:///work');
    expect(seen.map((s) => s.message)).toEqual(['Who?']);
    // 2026: one input_required round carrying all three questions, then the run with the answers.
    expect(runs.together).toBe(modern ? 2 : 1);
  });

  it('lets a prompt ask the user before it renders', async () => {
    const { client } = await connect(modern, [{ action: 'accept', content: { name: 'release notes' } }]);
    const prompt = await client.getPrompt({ name: 'asking_prompt', arguments: {} });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Rendered for release notes' });
  });

  it('refuses two questions of one call under one key, naming it', async () => {
    const { client } = await connect(modern, [{ action: 'accept', content: { name: 'x' } }]);
    const result = await client.callTool({ name: 'twice', arguments: {} });
    expect(result.isError).toBe(true);
    expect(String(reported[0])).toContain('Two client requests of one call are both named "same"');
  });

  it('tells the handler what the client declared', async () => {
    const { client } = await connect(modern, [], { sampling: {} });
    const result = await client.callTool({ name: 'declared', arguments: {} });
    expect(result.structuredContent).toEqual({ capabilities: { sampling: {} } });
  });

  it('says clearly when the client lacks the capability', async () => {
    const { client } = await connect(modern, [], {});
    const outcome = await client.callTool({ name: 'charge', arguments: {} }).then(
      (r) => ({ error: undefined, text: textOf(r) }),
      (e: { code?: number; message: string }) => ({ error: e.code, text: e.message }),
    );
    expect(outcome.text).toContain('This tool needs form elicitation, which the client did not declare in its capabilities');
    expect(outcome.error).toBe(modern ? -32021 : undefined);
  });
});

describe('requestState integrity (2026-07-28)', () => {
  it('refuses a forged requestState', async () => {
    const app = createMcpApp(FeatureServer);
    const listener = await app.listenHttp({ port: 0 });
    cleanup.push(() => listener.close());
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'charge',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'charge',
          arguments: {},
          requestState: Buffer.from(
            JSON.stringify({ answers: { armature_0: { action: 'accept', content: { name: 'evil', seats: 1 } } } }),
          ).toString('base64'),
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'forger', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          },
        },
      }),
    });
    const text = await response.text();
    expect(text).toContain('Invalid or expired requestState');
    expect(text).not.toContain('charged evil');
  });
});

describe('named questions on the wire (2026-07-28)', () => {
  it('puts questions asked together in one input_required result, under their keys', async () => {
    const app = createMcpApp(NamedQuestions);
    const listener = await app.listenHttp({ port: 0 });
    cleanup.push(() => listener.close());
    const { body } = await modernRpc(
      listener.url,
      'tools/call',
      { name: 'together', arguments: {} },
      {
        elicitation: { form: {} },
        sampling: {},
        roots: {},
      },
    );
    const result = body.result as { resultType: string; requestState?: string; inputRequests: Record<string, { method: string }> };
    expect(result.resultType).toBe('input_required');
    expect(Object.entries(result.inputRequests).map(([key, request]) => [key, request.method])).toEqual([
      ['who', 'elicitation/create'],
      ['style', 'sampling/createMessage'],
      ['where', 'roots/list'],
    ]);
    expect(typeof result.requestState).toBe('string');
  });
});

describe('in memory (2025-11-25)', () => {
  it('works through the SDK in-memory transport too', async () => {
    const c = await connectInMemory(createMcpApp(FeatureServer), { elicitation: {} });
    cleanup.push(() => c.close());
    c.client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'mem', seats: 2 } }) as never);
    expect(textOf(await c.client.callTool({ name: 'charge', arguments: {} }))).toBe('charged mem for 2 seat(s), instance=true');
  });
});

/** Posts one JSON-RPC message of the session; the response. */
function post(url: string, session: string | undefined, message: Record<string, unknown>) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
}

/**
 * Calls `interview` in a session whose client never opens the GET stream: the methods of the
 * requests that came on the call's own stream (each answered as it comes), until its answer.
 */
async function askedOnTheCallStream(requestEngine: boolean): Promise<string[]> {
  const app = createMcpApp(FeatureServer, { onError: (error) => void reported.push(error), requestEngine });
  const listener = await app.listenHttp({ port: 0 });
  cleanup.push(() => listener.close());
  const capabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };
  const opened = await post(listener.url, undefined, {
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'no-get', version: '1' } },
  });
  const session = opened.headers.get('mcp-session-id') ?? undefined;
  await opened.text();
  await (await post(listener.url, session, { method: 'notifications/initialized' })).text();
  const answers: Record<string, unknown> = {
    'elicitation/create': { action: 'accept', content: { a: 'x', b: 1 } },
    'sampling/createMessage': { role: 'assistant', model: 'echo', content: { type: 'text', text: 'ok' } },
    'roots/list': { roots: [] },
  };
  const asked: string[] = [];
  const call = await post(listener.url, session, { id: 1, method: 'tools/call', params: { name: 'interview', arguments: {} } });
  const reader = (call.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  // Bounded: a question that went elsewhere leaves the call waiting for ever.
  const deadline = setTimeout(() => void reader.cancel(), 10_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return [...asked, 'stream ended without an answer'];
      buffered += decoder.decode(value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const data = buffered
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('');
        buffered = buffered.slice(end + 2);
        if (!data) continue;
        const message = JSON.parse(data) as { id?: number; method?: string; result?: unknown };
        if (message.id === 1 && message.method === undefined) return asked;
        if (message.method && message.id !== undefined) {
          asked.push(message.method);
          await (await post(listener.url, session, { id: message.id, result: answers[message.method] })).text();
        }
      }
    }
  } finally {
    clearTimeout(deadline);
  }
}

describe.each([
  ['the request engine', true],
  ["the SDK's path", false],
])('2025-11-25, served by %s', (_label, requestEngine) => {
  it("asks every question on the call's own stream: a client that never opens the GET stream is asked all the same", async () => {
    expect(await askedOnTheCallStream(requestEngine)).toEqual([
      'elicitation/create',
      'elicitation/create',
      'sampling/createMessage',
      'roots/list',
    ]);
  });
});
