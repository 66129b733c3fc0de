import { request } from 'node:http';
import {
  ArmatureBuildError,
  createMcpApp,
  type HttpListener,
  InvalidTokenError,
  type ListenHttpOptions,
  McpServer,
  Prompt,
  RATE_LIMITED,
  RateLimit,
  SEP_3304_RATE_LIMITED,
  Tool,
} from '@armature/core';
import { redisState } from '@armature/redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectInMemory, expectEqual } from './support/check.js';
import { startRedis } from './support/redis-server.js';

// #region decorator
@RateLimit({ limit: 100, windowMs: 60_000 }) // one count for all the class's handlers, per caller
@McpServer({ name: 'search', version: '1.0.0' })
export class SearchServer {
  @RateLimit({ limit: 2, windowMs: 60_000, by: ['principal'] }) // and 2 a minute of this one
  @Tool({ description: 'Search the web' })
  search() {
    return 'results';
  }

  @RateLimit({ limit: 1, windowMs: 10_000, by: ['session'] })
  @Prompt({ description: 'A research plan' })
  plan() {
    return 'Search, read, summarise.';
  }
}
// #endregion

// #region app-option
export const app = createMcpApp(SearchServer, {
  // Every tool, resource, prompt and completion call counts here too: 1,000 a minute per caller and tool.
  rateLimits: [{ limit: 1_000, windowMs: 60_000, by: ['principal', 'tool'] }],
});
// #endregion

/** What the guide shows; the seconds left in the window (N) vary from run to run, so they are checked apart. */
export const outputs: Record<string, string> = {
  'tool-limited':
    'Rate limit reached: tool "search" allows 2 calls per 60 s per principal (@RateLimit on SearchServer.search). Retry in N s',
  'prompt-limited': JSON.stringify({
    code: -32029,
    message: 'Rate limit reached: prompt "plan" allows 1 call per 10 s per session (@RateLimit on SearchServer.plan). Retry in N s',
    data: { retryAfterSeconds: 'N' },
  }),
  'http-limited': [
    'HTTP/1.1 429 Too Many Requests',
    'Retry-After: N',
    '',
    '{"jsonrpc":"2.0","error":{"code":-32029,"message":"Too Many Requests: this client sent more than 1 request in 60 s (rateLimit); retry in N s","data":{"retryAfterSeconds":N,"retryAfterMs":N}},"id":null}',
  ].join('\n'),
  'sep-3304-limited': JSON.stringify({
    code: -32023,
    message: 'Rate limit reached: tool "search" allows 2 calls per 60 s per principal (@RateLimit on SearchServer.search). Retry in N s',
    data: { retryAfterMs: 'N' },
  }),
  startup: [
    'Armature cannot start the MCP server: 1 problem in the decorated classes.',
    '  1. BadLimits.search: @RateLimit has windowMs 1500; it must be a whole number of seconds in ms (1000 or more): the shared store counts whole seconds [ARM304]',
    "     Fix: @RateLimit({ limit: 10, windowMs: 60_000, by: ['principal', 'tool'] })",
  ].join('\n'),
};

const withoutSeconds = (text: string) => text.replace(/(Retry in |retry in )\d+ s/, '$1N s');

function secondsIn(text: string, max: number): number {
  const seconds = Number(/etry in (\d+) s/.exec(text)?.[1]);
  if (!(seconds >= 1 && seconds <= max)) throw new Error(`retry time ${seconds} outside 1..${max} in: ${text}`);
  return seconds;
}

async function toolAndPrompt(): Promise<void> {
  const { client, close } = await connectInMemory(app);
  try {
    for (let i = 0; i < 2; i++)
      expectEqual((await client.callTool({ name: 'search', arguments: {} })).isError, undefined, 'within the limit');
    const limited = await client.callTool({ name: 'search', arguments: {} });
    expectEqual(limited.isError, true, 'the third call is a tool error');
    const text = (limited.content as { text: string }[])[0]?.text ?? '';
    secondsIn(text, 60);
    expectEqual(withoutSeconds(text), outputs['tool-limited'], 'the tool error text');

    await client.getPrompt({ name: 'plan' });
    const error = (await client.getPrompt({ name: 'plan' }).catch((e: unknown) => e)) as {
      code: number;
      message: string;
      data: { retryAfterSeconds: number; retryAfterMs: number };
    };
    expectEqual(error.code, RATE_LIMITED, 'a prompt over its limit: JSON-RPC error -32029');
    expectEqual(error.data.retryAfterSeconds, secondsIn(error.message, 10), 'data.retryAfterSeconds is the time in the text');
    const shown = JSON.stringify({ code: error.code, message: withoutSeconds(error.message), data: { retryAfterSeconds: 'N' } });
    expectEqual(shown, outputs['prompt-limited'], 'the JSON-RPC error');
  } finally {
    await close();
  }
}

async function endpointWide(): Promise<void> {
  const app = createMcpApp(SearchServer);
  // #region http
  const options: ListenHttpOptions = {
    rateLimit: { limit: 600, windowMs: 60_000 }, // HTTP requests per client (bearer subject, else address) a minute
    trustProxy: 1, // behind one reverse proxy: the client address it appends to X-Forwarded-For
  };
  // #endregion
  const listener = await app.listenHttp({ port: 0, ...options });
  await listener.close();

  const small = await app.listenHttp({ port: 0, rateLimit: { limit: 1, windowMs: 60_000 } });
  try {
    const client = new Client({ name: 'docs-check', version: '1.0.0' });
    // initialize is this client's one request of the minute: the next one is refused.
    const refused = await client.connect(new StreamableHTTPClientTransport(new URL(small.url))).then(
      () => 'connected',
      () => 'refused',
    );
    expectEqual(refused, 'refused', 'the SDK client is refused past the limit');
    // A request whose body is never sent: the 429 comes from the headers.
    const answer = await withheldBody(small);
    expectEqual(answer.status, 429, 'answered 429 before the body');
    secondsIn(`retry in ${answer.retryAfter} s`, 60);
    const body = withoutSeconds(answer.body).replace(/"retryAfter(Seconds|Ms)":\d+/g, '"retryAfter$1":N');
    expectEqual(`HTTP/1.1 429 Too Many Requests\nRetry-After: N\n\n${body}`, outputs['http-limited'], 'the 429');
  } finally {
    await small.close();
  }
}

async function failedAuthentications(): Promise<void> {
  const app = createMcpApp(SearchServer);
  // #region failed-auth
  let verified = 0; // how many tokens the verifier was asked to check
  const options: ListenHttpOptions = {
    auth: {
      verifier: {
        verify: async () => {
          verified++; // a signature check, in a real verifier
          throw new InvalidTokenError('the token could not be verified');
        },
      },
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://auth.example.com'],
      failedAuthLimit: { limit: 20, windowMs: 60_000 }, // default 60 a minute per address; false turns it off
    },
  };
  // #endregion
  const listener = await app.listenHttp({ port: 0, ...options });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await fetch(listener.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer forged' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      statuses.push(answer.status);
      await answer.text();
    }
    expectEqual(
      [statuses.filter((s) => s === 401).length, statuses.filter((s) => s === 429).length, verified],
      [20, 10, 20],
      '20 failures verified, then 429 without verifying',
    );
  } finally {
    await listener.close();
  }
}

function withheldBody(listener: HttpListener): Promise<{ status: number; retryAfter: string; body: string }> {
  const { port } = new URL(listener.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': '1000000' },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, retryAfter: String(res.headers['retry-after']), body: JSON.stringify(JSON.parse(body)) });
          req.destroy();
        });
      },
    );
    req.on('error', () => undefined);
    req.setTimeout(10_000, () => reject(new Error('no answer while the body was unsent')));
    req.write('{"jsonrpc":"2.0"');
  });
}

async function sep3304(): Promise<void> {
  // #region sep-3304
  const app = createMcpApp(SearchServer, {
    rateLimitError: 'sep-3304', // -32023 with data.retryAfterMs, for tool calls too (draft SEP-3304)
  });
  // #endregion
  const { client, close } = await connectInMemory(app);
  try {
    for (let i = 0; i < 2; i++) await client.callTool({ name: 'search', arguments: {} });
    const error = (await client.callTool({ name: 'search', arguments: {} }).catch((e: unknown) => e)) as {
      code: number;
      message: string;
      data: { retryAfterMs: number };
    };
    expectEqual(error.code, SEP_3304_RATE_LIMITED, 'a tool over its limit: JSON-RPC error -32023');
    const seconds = secondsIn(error.message, 60);
    if (!(error.data.retryAfterMs > (seconds - 1) * 1000 && error.data.retryAfterMs <= seconds * 1000))
      throw new Error(`data.retryAfterMs ${error.data.retryAfterMs} does not match the ${seconds} s of the text`);
    expectEqual(Object.keys(error.data).join(), 'retryAfterMs', 'data carries retryAfterMs only');
    const shown = JSON.stringify({ code: error.code, message: withoutSeconds(error.message), data: { retryAfterMs: 'N' } });
    expectEqual(shown, outputs['sep-3304-limited'], 'the SEP-3304 error');
  } finally {
    await close();
    await app.close();
  }
}

async function acrossInstances(): Promise<void> {
  const redis = await startRedis();
  try {
    // #region redis
    const instance = (redisUrl: string) =>
      createMcpApp(SearchServer, {
        state: redisState({ url: redisUrl }), // counts live in Redis: every instance counts the same calls
        requestStateKey: process.env.MCP_REQUEST_STATE_KEY ?? 'k'.repeat(32),
      });
    // #endregion
    const [a, b] = [instance(redis.url), instance(redis.url)];
    await Promise.all([a.ready(), b.ready()]); // listenHttp waits for the state itself
    const [onA, onB] = [await connectInMemory(a), await connectInMemory(b)];
    try {
      const call = async (client: Client) => ((await client.callTool({ name: 'search', arguments: {} })).isError ? 'limited' : 'ok');
      expectEqual([await call(onA.client), await call(onB.client), await call(onA.client)], ['ok', 'ok', 'limited'], 'one count');
    } finally {
      await onA.close();
      await onB.close();
      await a.close();
      await b.close();
    }
  } finally {
    await redis.stop();
  }
}

async function startupError(): Promise<void> {
  @McpServer({ name: 'bad-limits', version: '1.0.0' })
  class BadLimits {
    @RateLimit({ limit: 10, windowMs: 1500 })
    @Tool({ description: 'Search' })
    search() {
      return 'results';
    }
  }
  try {
    createMcpApp(BadLimits);
    throw new Error('a window of 1.5 s was accepted');
  } catch (error) {
    expectEqual(error instanceof ArmatureBuildError, true, 'a bad @RateLimit stops the app at start-up');
    expectEqual((error as Error).message, outputs.startup, 'the start-up error');
  }
}

export async function main(): Promise<void> {
  await startupError();
  await toolAndPrompt();
  await endpointWide();
  await sep3304();
  await failedAuthentications();
  await acrossInstances();
}
