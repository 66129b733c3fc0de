import { request } from 'node:http';
import { IsInt, IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, InMemoryEventStore, type McpApp, McpServer, sdkContextOf, Tool } from '../src/index.js';
import { JSON_ANSWER_MAX_BYTES } from '../src/transports/sessions/session-answer.js';

// A resumable 2025-11-25 session whose call the request engine answers itself: the client drops
// the call's stream after its priming event and resumes with Last-Event-ID on the same instance;
// it gets what was sent meanwhile and the answer, as from the SDK's session transport.

@McpServer({ name: 'resume', version: '1.0.0' })
class Slow {
  @Tool({ description: 'logs, waits, answers' })
  async slow(ctx: Context) {
    await ctx.log.info('started');
    await new Promise((resolve) => setTimeout(resolve, 400));
    return 'finished';
  }
}

class Repeated {
  @IsString() char!: string;
  @IsInt() chars!: number;
}

@McpServer({ name: 'resume-fast', version: '1.0.0' })
class Fast {
  @Tool({ description: 'logs and answers at once' })
  async fast(ctx: Context) {
    void ctx.log.info('started');
    return 'finished';
  }

  @Tool({ description: 'answers at once' })
  quick() {
    return 'quick';
  }

  @Tool({ description: 'answers at once with `chars` copies of `char`' })
  large(input: Repeated) {
    return input.char.repeat(input.chars);
  }

  @Tool({ description: 'closes its stream at once, then answers later' })
  async polled(ctx: Context) {
    sdkContextOf(ctx)?.http?.closeSSE?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return 'polled';
  }
}

/** The events of an SSE body: each one's id (undefined for none) and its data, parsed (undefined for none). */
function eventsOf(body: string): { id?: string; data?: unknown }[] {
  return body
    .split('\n\n')
    .filter((event) => event.trim() !== '')
    .map((event) => {
      const id = /^id: (.+)$/m.exec(event)?.[1];
      const data = /^data: (.+)$/m.exec(event)?.[1];
      return { ...(id !== undefined ? { id } : {}), ...(data !== undefined ? { data: JSON.parse(data) } : {}) };
    });
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POSTs `body`; resolves with the headers and the whole body, or (`firstEvent`) the first event's id, dropping the stream. */
function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: object,
  firstEvent = false,
): Promise<{ headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...HEADERS, ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const id = /^id: (.+)$/m.exec(text)?.[1];
        if (firstEvent && id && text.includes('\n\n')) {
          req.destroy();
          resolve({ headers: res.headers, body: id });
        }
      });
      res.on('end', () => resolve({ headers: res.headers, body: text }));
      res.on('error', () => undefined);
    });
    req.on('error', (error) => (firstEvent ? undefined : reject(error)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Opens an initialized session at `url` whose log level is info; the headers of its requests. */
async function openSession(url: string, protocolVersion = '2025-11-25'): Promise<Record<string, string>> {
  const init = await exchange(
    url,
    'POST',
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    },
  );
  const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': protocolVersion };
  await exchange(url, 'POST', headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  await exchange(url, 'POST', headers, { jsonrpc: '2.0', id: 'l', method: 'logging/setLevel', params: { level: 'info' } });
  return headers;
}

let app: McpApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('a resumable session call answered by the engine', () => {
  it('is resumed with Last-Event-ID on the same instance, and the answer arrives there', async () => {
    app = createMcpApp(Slow);
    const listener = await app.listenHttp({ port: 0, eventStore: true });
    const headers = await openSession(listener.url);
    const directBefore = app.stats.engine;
    const primed = await exchange(
      listener.url,
      'POST',
      headers,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: {} } },
      true,
    );
    const resumed = await exchange(listener.url, 'GET', { ...headers, accept: 'text/event-stream', 'last-event-id': primed.body });
    expect(app.stats.engine - directBefore).toBe(1);
    const events = resumed.body.split('\n\n').filter((event) => event.includes('data: {'));
    expect(events.map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'started' } },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'finished' }] } },
    ]);
  });
});

@McpServer({ name: 'resume-batch', version: '1.0.0' })
class Mixed {
  @Tool({ description: 'logs, waits, answers' })
  async slow(ctx: Context) {
    await ctx.log.info('started');
    await new Promise((resolve) => setTimeout(resolve, 400));
    return 'finished';
  }

  @Tool({ description: 'answers at once' })
  fast() {
    return 'at once';
  }
}

describe('a resumable JSON-RPC batch (2025-03-26) answered on one stream', () => {
  it('is resumed after its first answer with Last-Event-ID, and the last answer arrives on the resumed stream', async () => {
    app = createMcpApp(Mixed);
    const listener = await app.listenHttp({ port: 0, eventStore: true });
    const headers = await openSession(listener.url, '2025-03-26');
    // The slow call's log line and the fast call's answer open the stream; the client drops it then.
    const first = await exchange(
      listener.url,
      'POST',
      headers,
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fast', arguments: {} } },
      ] as unknown as object,
      true,
    );
    const resumed = await exchange(listener.url, 'GET', { ...headers, accept: 'text/event-stream', 'last-event-id': first.body });
    expect(eventsOf(resumed.body).map((event) => event.data)).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'at once' }] } },
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'finished' }] } },
    ]);
  });
});

describe("a resumable session call framed by the SDK's session transport", () => {
  it('is resumed by that transport, which writes the answer on the resumed stream', async () => {
    app = createMcpApp(Slow);
    const listener = await app.listenHttp({ port: 0, eventStore: true });
    const headers = await openSession(listener.url);
    // Another supported revision in the header: Armature leaves the call to the SDK's transport,
    // which frames its stream (primed, as the session negotiated 2025-11-25).
    const primed = await exchange(
      listener.url,
      'POST',
      { ...headers, 'mcp-protocol-version': '2025-06-18' },
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: {} } },
      true,
    );
    // Armature holds the session's GET streams, but this stream is still the SDK transport's to write.
    const resumed = await exchange(listener.url, 'GET', { ...headers, accept: 'text/event-stream', 'last-event-id': primed.body });
    const events = resumed.body.split('\n\n').filter((event) => event.includes('data: {'));
    expect(events.map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'started' } },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'finished' }] } },
    ]);
  });
});

describe('a resumable session call the engine answers within the turn it began in', () => {
  it('writes its priming event, notification and answer together, each stored: a resume from the priming event replays them', async () => {
    const { events, resume } = await callFast(3, 'fast');
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'started' } };
    const answer = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'finished' }] } };
    expect(events.map((event) => event.data)).toEqual([undefined, log, answer]);
    expect(events.every((event) => event.id !== undefined)).toBe(true);
    const [priming, ...rest] = events;
    expect(await resume(priming?.id as string)).toEqual(rest);
  });

  it('closed by its handler before anything was written: the priming event ends the response, the answer is resumed', async () => {
    const { events, resume } = await callFast(4, 'polled');
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toBeUndefined();
    expect((await resume(events[0]?.id as string)).map((event) => event.data)).toEqual([
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'polled' }] } },
    ]);
  });
});

describe('a resumable session call answered within its turn with nothing before its answer', () => {
  it('is answered with one JSON body, and nothing of it is stored', async () => {
    const { call, stored } = await callFast(5, 'quick');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['mcp-session-id']).toMatch(/./);
    expect(JSON.parse(call.body)).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'quick' }] } });
    // Nor were the session's initialize and log level request, answered at once too.
    expect(stored).toEqual([]);
  });

  it.each([
    ['ASCII', 'a', JSON_ANSWER_MAX_BYTES],
    // Fewer characters than the bound, more bytes: 3 bytes each in UTF-8.
    ['three-byte characters', '\u20ac', Math.ceil(JSON_ANSWER_MAX_BYTES / 3) + 10],
  ])(
    'is primed and stored when its answer is larger than one write (%s), so that a cut-off client can resume it',
    async (_, char, chars) => {
      const { events, resume, stored } = await callFast(6, 'large', { char, chars });
      expect(events.map((event) => event.data === undefined)).toEqual([true, false]);
      expect(events.every((event) => event.id !== undefined)).toBe(true);
      const answer = events[1]?.data as { result?: { content: { text: string }[] } } | undefined;
      expect(answer?.result?.content[0]?.text).toBe(char.repeat(chars));
      expect(stored).toHaveLength(2);
      expect(await resume(events[0]?.id as string)).toEqual(events.slice(1));
    },
  );
});

/**
 * Calls `tool` of `Fast` as request `id` in a new resumable session: the events of its POST's
 * answer (and the whole answer), how to resume from one, and what the event store stored.
 */
async function callFast(id: number, tool: string, args: Record<string, unknown> = {}) {
  app = createMcpApp(Fast);
  const store = new InMemoryEventStore();
  const stored: unknown[] = [];
  const storeEvent = store.storeEvent.bind(store);
  store.storeEvent = (streamId, message) => {
    stored.push(message);
    return storeEvent(streamId, message);
  };
  const listener = await app.listenHttp({ port: 0, eventStore: store });
  const headers = await openSession(listener.url);
  const call = await exchange(listener.url, 'POST', headers, {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  });
  const resume = async (lastEventId: string) =>
    eventsOf((await exchange(listener.url, 'GET', { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId })).body);
  return { call, events: call.headers['content-type'] === 'text/event-stream' ? eventsOf(call.body) : [], resume, stored };
}
