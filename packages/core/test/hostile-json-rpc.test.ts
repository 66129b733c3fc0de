import { PassThrough } from 'node:stream';
import { IsString } from 'class-validator';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, type HttpListener, McpServer, Prompt, Resource, type StdioHandle, Tool } from '../src/index.js';

// Hostile JSON-RPC on each wire (stdio's line transport, HTTP 2025-11-25 sessions, HTTP 2026-07-28
// on node:http at 127.0.0.1): whatever arrives, the server does not crash, each request with a
// usable id gets exactly one well-formed answer (or the HTTP refusal the transport documents),
// and a valid call is served right after. Bounded runs: 120 cases per wire.

class EchoInput {
  @IsString()
  text!: string;
}

@McpServer({ name: 'hostile', version: '1.0.0' })
class TargetServer {
  @Tool({ description: 'echoes' })
  echo(input: EchoInput) {
    return input.text;
  }

  @Resource({ uri: 'test://readme', name: 'readme' })
  readme() {
    return 'read me';
  }

  @Prompt({ description: 'greets' })
  greet() {
    return 'hello';
  }
}

const RUNS = 120;
const MODERN = '2026-07-28';

/** One hostile message: its bytes, and the id it must be answered under when it is a well-formed request. */
interface Hostile {
  readonly bytes: Buffer;
  readonly method?: string;
  /** Set for a request with a string or safe-integer id: exactly one answer must carry it. */
  readonly expectsAnswer?: string | number;
}

const METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'resources/read',
  'resources/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'initialize',
  'notifications/cancelled',
  'notifications/initialized',
  'server/discover',
  '',
] as const;

/** A raw JSON literal put where a value is (ids JSON.stringify cannot write, e.g. 1e400). */
const RAW = '\u0000raw:';
const rawLiteral = (literal: string) => `${RAW}${literal}`;

const idArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -1_000, max: 1_000_000 }) },
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 53, 2 ** 60, -(2 ** 63), 1.5, -0.25) },
  { weight: 1, arbitrary: fc.constantFrom(rawLiteral('1e400'), rawLiteral('123456789012345678901234567890'), rawLiteral('-1e-400')) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, {}, [], [1], { id: 1 }) },
  { weight: 1, arbitrary: fc.constant('x'.repeat(5_000)) },
);

/** `__proto__`, `constructor` and `prototype` as own keys, as JSON.parse makes them. */
const pollutingArb = fc.constantFrom(
  '{"__proto__":{"polluted":true},"text":"x"}',
  '{"constructor":{"prototype":{"polluted":true}},"text":"x"}',
  '{"text":{"__proto__":{"toString":"boom"}}}',
  '{"__proto__":null}',
);

const paramsArb = (method: string) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 3,
      arbitrary: fc
        .record({
          name: fc.constantFrom('echo', 'greet', 'nope', '__proto__', 'constructor'),
          args: fc.oneof(
            pollutingArb,
            fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
          ),
        })
        .map(({ name, args }) => JSON.parse(`{"name":${JSON.stringify(name)},"arguments":${args},"uri":"test://readme"}`) as unknown),
    },
    { weight: 2, arbitrary: pollutingArb.map((text) => JSON.parse(text) as unknown) },
    {
      weight: 2,
      arbitrary: fc.constant(
        method === 'tools/call'
          ? { name: 'echo', arguments: { text: 'fine' } }
          : method === 'resources/read'
            ? { uri: 'test://readme' }
            : {},
      ),
    },
  );

/** The per-request envelope a 2026-07-28 request carries in `_meta`. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function stringify(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.replace(/"\\u0000raw:([^"]*)"/g, '$1');
}

/** Counts the messages made, so that each usable id is used once. */
let cases = 0;

const envelopeArb = (modern: boolean) =>
  fc
    .record(
      {
        jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '2.0', '2.0', '2.0', '2.0', '2.0', '1.0', 2, null),
        id: idArb,
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...METHODS) },
          { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
          { weight: 1, arbitrary: fc.integer() },
        ),
        withEnvelope: fc.boolean(),
      },
      { requiredKeys: ['jsonrpc', 'method', 'withEnvelope', 'id'] },
    )
    .chain((message) => paramsArb(String(message.method)).map((params) => ({ ...message, params })))
    .map(({ withEnvelope, params, ...message }): Hostile => {
      const index = cases++;
      let given = params;
      if (modern && withEnvelope && typeof given === 'object' && given !== null && !Array.isArray(given))
        given = { ...given, _meta: ENVELOPE };
      else if (modern && withEnvelope && given === undefined) given = { _meta: ENVELOPE };
      const body: Record<string, unknown> = { ...message, ...(given === undefined ? {} : { params: given }) };
      const method = typeof body.method === 'string' ? body.method : undefined;
      const isRequest = body.jsonrpc === '2.0' && method !== undefined && !method.startsWith('notifications/') && 'id' in body;
      const id = body.id;
      const usable = (typeof id === 'string' && !id.startsWith(RAW)) || (typeof id === 'number' && Number.isSafeInteger(id));
      if (isRequest && usable) body.id = typeof id === 'string' ? `${id}#${index}` : index;
      return {
        bytes: Buffer.from(stringify(body)),
        ...(method !== undefined ? { method } : {}),
        ...(isRequest && usable ? { expectsAnswer: body.id as string | number } : {}),
      };
    });

/** A valid call's text with invalid UTF-8 put inside a string value. */
const badUtf8Arb = fc
  .record({
    bytes: fc.constantFrom([0xff], [0xfe, 0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf]),
    index: fc.nat(),
  })
  .map(({ bytes, index }): Hostile => {
    const head = Buffer.from(
      `{"jsonrpc":"2.0","id":${1_000_000 + index},"method":"tools/call","params":{"name":"echo","arguments":{"text":"a`,
    );
    const tail = Buffer.from('b"}}}');
    return { bytes: Buffer.concat([head, Buffer.from(bytes), tail]), method: 'tools/call' };
  });

/** A valid call cut short. */
const truncatedArb = fc.nat({ max: 80 }).map((cut): Hostile => {
  const text = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"cut here"}}}';
  return { bytes: Buffer.from(text.slice(0, 1 + (cut % (text.length - 1)))), method: 'tools/call' };
});

const hostileArb = (modern: boolean) =>
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Hostile => ({ bytes: Buffer.from(JSON.stringify(value) ?? 'null') })),
    },
    { weight: 6, arbitrary: envelopeArb(modern) },
    { weight: 1, arbitrary: badUtf8Arb },
    { weight: 1, arbitrary: truncatedArb },
  );

/**
 * Sends RUNS hostile messages (`modern`: shaped for 2026-07-28) through `serve`, then checks that
 * plenty of them were usable requests: otherwise "answered exactly once" would test little.
 */
async function eachHostile(modern: boolean, serve: (hostile: Hostile) => Promise<void>): Promise<void> {
  let usable = 0;
  await fc.assert(
    fc.asyncProperty(hostileArb(modern), async (hostile) => {
      if (hostile.expectsAnswer !== undefined) usable++;
      await serve(hostile);
    }),
    { numRuns: RUNS },
  );
  expect(usable).toBeGreaterThanOrEqual(RUNS / 8);
}

/** A hostile message as text, long runs shortened: what a failure names. */
function shown(hostile: Hostile): string {
  return hostile.bytes.toString('utf8').replace(/(.)\1{19,}/g, '$1…');
}

/** What a well-formed JSON-RPC message from the server is: a response (result xor error) or a notification. */
function expectWellFormed(message: unknown): void {
  expect(typeof message === 'object' && message !== null && !Array.isArray(message)).toBe(true);
  const m = message as Record<string, unknown>;
  expect(m.jsonrpc).toBe('2.0');
  if ('method' in m) {
    expect(typeof m.method).toBe('string');
    return;
  }
  expect(['string', 'number'].includes(typeof m.id) || m.id === null).toBe(true);
  expect('result' in m !== 'error' in m).toBe(true);
  if ('error' in m) {
    const error = m.error as Record<string, unknown>;
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
  } else expect(typeof m.result === 'object' && m.result !== null).toBe(true);
}

/** The JSON-RPC messages of an HTTP body: JSON, or the `data:` lines of an SSE stream. */
function messagesOfBody(text: string): unknown[] {
  if (text.trim() === '') return [];
  if (text.trimStart().startsWith('{') || text.trimStart().startsWith('[')) {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value : [value];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

const app = createMcpApp(TargetServer, { onError: () => undefined });
afterAll(async () => {
  await app.close();
});

describe('hostile JSON-RPC over stdio (the line transport)', () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let handle: StdioHandle;
  const lines: unknown[] = [];
  let waiters: (() => void)[] = [];
  let buffer = '';

  beforeAll(async () => {
    handle = app.listenStdio({ stdin, stdout, exitOnClose: false });
    stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        lines.push(JSON.parse(line) as unknown);
        for (const wake of waiters.splice(0)) wake();
      }
    });
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } } })}\n`,
    );
    await answerTo('init');
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  });
  afterAll(async () => {
    await handle?.close();
  });

  async function answerTo(id: string | number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = lines.find((m) => (m as { id?: unknown }).id === id && !('method' in (m as object)));
      if (found) return found as Record<string, unknown>;
      if (Date.now() > deadline) throw new Error(`no answer to ${JSON.stringify(id)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  it('never crashes, answers each usable request exactly once, well-formed, and serves a valid call after each', async () => {
    let sentinel = 0;
    await eachHostile(false, async (hostile) => {
      lines.length = 0;
      waiters = [];
      stdin.write(Buffer.concat([hostile.bytes, Buffer.from('\n')]));
      const check = `sentinel-${sentinel++}`;
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: check, method: 'tools/call', params: { name: 'echo', arguments: { text: 'ok' } } })}\n`,
      );
      const answer = await answerTo(check);
      expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
      if (hostile.expectsAnswer !== undefined)
        await answerTo(hostile.expectsAnswer).catch(() => {
          throw new Error(
            `no answer over stdio to ${shown(hostile)}; the server wrote ${lines
              .map((line) => JSON.stringify(line))
              .join(' ')
              .replace(/(.)\1{19,}/g, '$1…')}`,
          );
        });
      for (const line of lines) expectWellFormed(line);
      if (hostile.expectsAnswer !== undefined)
        expect(lines.filter((m) => (m as { id?: unknown }).id === hostile.expectsAnswer && !('method' in (m as object)))).toHaveLength(1);
    });
  }, 120_000);
});

describe('hostile JSON-RPC over HTTP on 127.0.0.1', () => {
  let listener: HttpListener;
  beforeAll(async () => {
    listener = await app.listenHttp({ port: 0 });
  });
  afterAll(async () => {
    await listener?.close();
  });

  async function post(
    body: Buffer | string,
    headers: Record<string, string>,
  ): Promise<{ status: number; messages: unknown[]; text: string }> {
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : new Uint8Array(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, messages: messagesOfBody(text), text };
  }

  /** A valid call right after a hostile message: the server still serves. */
  async function expectServed(id: string, params: Record<string, unknown>, headers: Record<string, string>): Promise<void> {
    const check = await post(
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'ok' }, ...params } }),
      headers,
    );
    expect(check.status).toBe(200);
    expect((check.messages[0] as { result?: unknown }).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
  }

  /** The HTTP answer to a hostile message: one response, well-formed, and exactly one answer for a usable request. */
  function expectAnswered(hostile: Hostile, answer: { status: number; messages: unknown[]; text: string }): void {
    for (const message of answer.messages) expectWellFormed(message);
    if (answer.status >= 400) {
      // A refusal: a JSON-RPC error body (or an empty one).
      if (answer.text.trim() !== '') expect(answer.messages).toHaveLength(1);
      const error = answer.messages[0] as { id?: unknown; error?: unknown } | undefined;
      if (error) {
        expect(error.error).toBeDefined();
        if (hostile.expectsAnswer !== undefined) expect([shown(hostile), error.id]).toEqual([shown(hostile), hostile.expectsAnswer]);
      }
      return;
    }
    expect([200, 202]).toContain(answer.status);
    if (hostile.expectsAnswer !== undefined) {
      const answers = answer.messages.filter((m) => (m as { id?: unknown }).id === hostile.expectsAnswer && !('method' in (m as object)));
      expect(answers).toHaveLength(1);
    }
  }

  it('2025-11-25 session: never crashes, one well-formed answer or refusal each, a valid call served after each', async () => {
    const opened = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
      }),
    });
    await opened.text();
    const sessionId = opened.headers.get('mcp-session-id') as string;
    expect(sessionId).toBeTruthy();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    expect((await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)).status).toBe(202);
    let sentinel = 0;
    await eachHostile(false, async (hostile) => {
      expectAnswered(hostile, await post(hostile.bytes, headers));
      await expectServed(`sentinel-${sentinel++}`, {}, headers);
    });
  }, 120_000);

  it('2026-07-28: never crashes, one well-formed answer or refusal each, a valid call served after each', async () => {
    let sentinel = 0;
    await eachHostile(true, async (hostile) => {
      const headers: Record<string, string> = {
        'mcp-protocol-version': MODERN,
        ...(hostile.method ? { 'mcp-method': hostile.method } : {}),
      };
      expectAnswered(hostile, await post(hostile.bytes, headers));
      await expectServed(
        `sentinel-${sentinel++}`,
        { _meta: ENVELOPE },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
      );
    });
  }, 120_000);
});
