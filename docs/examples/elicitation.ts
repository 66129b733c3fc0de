import { randomBytes } from 'node:crypto';
import { Context, createMcpApp, type ElicitationSchema, Field, type HttpListener, McpServer, Prompt, Resource, Tool } from '@armature/core';
import { Client, type FetchLike, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Type } from 'class-transformer';
import { IsBoolean, IsString, Matches, ValidateNested } from 'class-validator';
import { Container, Service } from 'typedi';
import { expectEqual, json } from './support/check.js';

// #region server
export class DeleteConfirmation {
  @Field('Type the repository name to confirm')
  @Matches(/^[\w.-]+\/[\w.-]+$/)
  repository!: string;

  @Field('Also delete its forks')
  @IsBoolean()
  includeForks: boolean = false;
}

export class DeleteInput {
  @IsString()
  repository!: string;
}

@Service()
export class RepoStore {
  readonly calls = { lookups: 0, deletions: 0 };

  lookup(name: string) {
    this.calls.lookups++;
    return { name, stars: 12 };
  }

  delete(name: string, forks: boolean) {
    this.calls.deletions++;
    return forks ? `${name} and its forks` : name;
  }
}

@McpServer({ name: 'repos', version: '1.0.0' })
export class ReposServer {
  constructor(private readonly store: RepoStore) {}

  @Tool({ description: 'Delete a repository once the user confirms', annotations: { destructiveHint: true } })
  async deleteRepository(input: DeleteInput, ctx: Context) {
    // Before the question: runs again when a 2026-07-28 client answers. Reads only, no side effects.
    const repo = this.store.lookup(input.repository);

    const answer = await ctx.elicit(`Delete ${repo.name} (${repo.stars} stars)? Type its name to confirm.`, DeleteConfirmation);
    if (answer.action !== 'accept') return `Nothing deleted (${answer.action}).`;
    if (answer.content.repository !== repo.name) return 'The names differ; nothing deleted.';

    // After the question: runs once, with a validated DeleteConfirmation.
    return `Deleted ${this.store.delete(repo.name, answer.content.includeForks)}.`;
  }
}
// #endregion

// #region client
const asked: unknown[] = []; // every question the server asked, for the example's checks

export function confirmingClient(modern: boolean, answer: Record<string, unknown>) {
  const client = new Client(
    { name: 'my-client', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      // modern: negotiate 2026-07-28 when the server offers it (over HTTP)
      ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    // A real client shows request.params.message and a form built from requestedSchema.
    asked.push(request.params);
    return answer as never;
  });
  return client;
}
// #endregion

// #region named
@McpServer({ name: 'travel', version: '1.0.0' })
export class TravelServer {
  @Tool({ description: 'Plan a trip' })
  async planTrip(ctx: Context) {
    const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } satisfies ElicitationSchema;
    const days = { type: 'object', properties: { days: { type: 'integer', minimum: 1 } }, required: ['days'] } satisfies ElicitationSchema;
    // Asked together: on 2026-07-28 both go to the client in one round, under these keys.
    const [where, howLong] = await Promise.all([
      ctx.elicit('Where to?', city, { key: 'destination' }),
      ctx.elicit('For how many days?', days, { key: 'length' }),
    ]);
    if (where.action !== 'accept' || howLong.action !== 'accept') return 'No trip planned.';
    return `${String(howLong.content.days)} days in ${String(where.content.city)}`;
  }
}
// #endregion

// #region raw-schema
@McpServer({ name: 'survey', version: '1.0.0' })
export class SurveyServer {
  @Tool({ description: 'Ask how the last deployment went' })
  async deploymentFeedback(ctx: Context) {
    const schema: ElicitationSchema = {
      type: 'object',
      properties: {
        rating: { type: 'integer', minimum: 1, maximum: 5, description: 'How smooth was it?' },
        comment: { type: 'string', description: 'Anything to add' },
      },
      required: ['rating'],
    };
    const answer = await ctx.elicit('How did the deployment go?', schema);
    // With a raw schema the content is a plain object, returned as the client sent it.
    return answer.action === 'accept' ? { feedback: answer.content } : `No feedback (${answer.action}).`;
  }
}
// #endregion

// #region url
@McpServer({ name: 'calendar', version: '1.0.0' })
export class CalendarServer {
  @Tool({ description: "Connect the user's calendar" })
  async connectCalendar(ctx: Context) {
    const outcome = await ctx.elicitUrl('Sign in to your calendar provider', 'https://calendar.example.com/connect');
    // 'accept' means the user agreed to open the page; the sign-in itself happens there.
    return outcome.action === 'accept' ? 'Waiting for the sign-in to finish.' : `Not connected (${outcome.action}).`;
  }
}
// #endregion

export const outputs: Record<string, string> = {
  'requested-schema': `{
  "mode": "form",
  "message": "Delete acme/old-site (12 stars)? Type its name to confirm.",
  "requestedSchema": {
    "type": "object",
    "properties": {
      "repository": {
        "type": "string",
        "description": "Type the repository name to confirm"
      },
      "includeForks": {
        "type": "boolean",
        "description": "Also delete its forks",
        "default": false
      }
    },
    "required": [
      "repository"
    ]
  }
}`,
  'invalid-answer': `The answer to "Delete acme/old-site (12 stars)? Type its name to confirm." is invalid:
repository: must match /^[\\w.-]+\\/[\\w.-]+$/ regular expression`,
  'not-a-form': `Nested cannot be used for elicitation: 1 problem in the DTO.
  1. Nested.address: Nested.address is a nested DTO; a form can only ask for strings, numbers, booleans and enums [ARM204]
     Fix: ask for Nested.address with a separate elicitation, or make it a string, number, boolean or enum property`,
  'missing-2025': 'This tool needs form elicitation, which the client did not declare in its capabilities',
};

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: ToolResult) => (result.content as Array<{ text: string }>)[0]?.text;

async function connect(url: string, client: Client, fetch?: FetchLike): Promise<Client> {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  return client;
}

/** The same ReposServer handler against a 2025-11-25 client and a 2026-07-28 client. */
async function bothRevisions(listener: HttpListener, store: RepoStore): Promise<void> {
  const yes = { action: 'accept', content: { repository: 'acme/old-site', includeForks: true } };
  for (const [modern, revision, lookups] of [
    [false, '2025-11-25', 1],
    [true, '2026-07-28', 2],
  ] as const) {
    asked.length = 0;
    store.calls.lookups = 0;
    store.calls.deletions = 0;
    const client = await connect(listener.url, confirmingClient(modern, yes));
    try {
      expectEqual(client.getNegotiatedProtocolVersion(), revision, 'revision');
      // #region call
      const result = await client.callTool({ name: 'deleteRepository', arguments: { repository: 'acme/old-site' } });
      // result.content: [{ type: 'text', text: 'Deleted acme/old-site and its forks.' }]
      // #endregion
      expectEqual(textOf(result), 'Deleted acme/old-site and its forks.', `${revision}: accepted`);
      expectEqual(json(asked), [JSON.parse(outputs['requested-schema'] as string)], `${revision}: the question`);
      expectEqual(store.calls, { lookups, deletions: 1 }, `${revision}: work before the question runs ${lookups} time(s)`);

      for (const action of ['decline', 'cancel']) {
        const other = await connect(listener.url, confirmingClient(modern, { action }));
        const refused = await other.callTool({ name: 'deleteRepository', arguments: { repository: 'acme/old-site' } });
        expectEqual(textOf(refused), `Nothing deleted (${action}).`, `${revision}: ${action}`);
        await other.close();
      }

      const sloppy = await connect(listener.url, confirmingClient(modern, { action: 'accept', content: { repository: 'old-site' } }));
      const invalid = await sloppy.callTool({ name: 'deleteRepository', arguments: { repository: 'acme/old-site' } });
      expectEqual([invalid.isError, textOf(invalid)], [true, outputs['invalid-answer']], `${revision}: an invalid answer`);
      await sloppy.close();
      expectEqual(store.calls.deletions, 1, `${revision}: nothing else deleted`);
    } finally {
      await client.close();
    }
  }
}

async function rawSchema(): Promise<void> {
  const app = createMcpApp(SurveyServer);
  const listener = await app.listenHttp({ port: 0 });
  try {
    for (const modern of [false, true]) {
      const answer = { action: 'accept', content: { rating: 4, comment: 'smooth' } };
      const client = await connect(listener.url, confirmingClient(modern, answer));
      const result = await client.callTool({ name: 'deploymentFeedback', arguments: {} });
      expectEqual(result.structuredContent, { feedback: { rating: 4, comment: 'smooth' } }, 'raw schema answer');
      await client.close();
    }
  } finally {
    await listener.close();
  }
}

async function urlMode(): Promise<void> {
  const app = createMcpApp(CalendarServer);
  const listener = await app.listenHttp({ port: 0 });
  try {
    for (const modern of [false, true]) {
      const seen: Array<Record<string, unknown>> = [];
      const client = new Client(
        { name: 'my-client', version: '1.0.0' },
        { capabilities: { elicitation: { url: {} } }, ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}) },
      );
      client.setRequestHandler('elicitation/create', async (request) => {
        seen.push(request.params as Record<string, unknown>);
        return { action: 'accept' };
      });
      await connect(listener.url, client);
      const result = await client.callTool({ name: 'connectCalendar', arguments: {} });
      expectEqual(textOf(result), 'Waiting for the sign-in to finish.', 'URL accepted');
      expectEqual(
        seen.map((p) => [p.mode, p.message, p.url]),
        [['url', 'Sign in to your calendar provider', 'https://calendar.example.com/connect']],
        'URL request',
      );
      expectEqual(typeof seen[0]?.elicitationId, modern ? 'undefined' : 'string', 'elicitationId on 2025-11-25');
      await client.close();
    }
  } finally {
    await listener.close();
  }
}

async function capabilities(listener: HttpListener): Promise<void> {
  // A client without the elicitation capability.
  const legacy = await connect(listener.url, new Client({ name: 'plain', version: '1.0.0' }));
  const modern = await connect(listener.url, new Client({ name: 'plain', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } }));
  try {
    const args = { name: 'deleteRepository', arguments: { repository: 'acme/old-site' } };
    const result = await legacy.callTool(args);
    expectEqual([result.isError, textOf(result)], [true, outputs['missing-2025']], '2025-11-25: a tool error');
    const error = await modern.callTool(args).catch((e: ProtocolError) => e);
    expectEqual(
      [error instanceof ProtocolError, (error as ProtocolError).code, (error as ProtocolError).message, (error as ProtocolError).data],
      [true, -32021, outputs['missing-2025'], { requiredCapabilities: { elicitation: { form: {} } } }],
      '2026-07-28: -32021',
    );
  } finally {
    await legacy.close();
    await modern.close();
  }
  // `elicitation: {}` means form support; URL mode must be declared.
  const calendar = await createMcpApp(CalendarServer).listenHttp({ port: 0 });
  const formOnly = new Client({ name: 'form-only', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  formOnly.setRequestHandler('elicitation/create', async () => ({ action: 'cancel' }));
  await connect(calendar.url, formOnly);
  try {
    const result = await formOnly.callTool({ name: 'connectCalendar', arguments: {} });
    expectEqual(textOf(result), 'This tool needs URL elicitation, which the client did not declare in its capabilities', 'url mode');
  } finally {
    await formOnly.close();
    await calendar.close();
  }
}

/** More than one question: on 2026-07-28 the method runs once more per answer. */
async function severalQuestions(): Promise<void> {
  let runs = 0;
  @McpServer({ name: 'two', version: '1.0.0' })
  class TwoQuestions {
    @Tool({ description: 'Asks twice' })
    async ask(ctx: Context) {
      runs++;
      const first = await ctx.elicit('First?', { type: 'object', properties: { a: { type: 'string' } } });
      const second = await ctx.elicit('Second?', { type: 'object', properties: { b: { type: 'string' } } });
      return `${first.action} ${second.action}`;
    }
  }
  const listener = await createMcpApp(TwoQuestions).listenHttp({ port: 0 });
  const travel = await createMcpApp(TravelServer).listenHttp({ port: 0 });
  try {
    for (const modern of [false, true]) {
      // The keys of each input_required round the client receives.
      const rounds: string[][] = [];
      const watching: FetchLike = async (url, init) => {
        const response = await fetch(url, init);
        if (!response.headers.get('content-type')?.includes('application/json')) return response; // SSE streams stay open
        const body = (await response.clone().json()) as { result?: { resultType?: string; inputRequests?: object } };
        if (body.result?.resultType === 'input_required') rounds.push(Object.keys(body.result.inputRequests ?? {}));
        return response;
      };
      const client = await connect(
        travel.url,
        confirmingClient(modern, { action: 'accept', content: { city: 'Lisbon', days: 3 } }),
        watching,
      );
      expectEqual(textOf(await client.callTool({ name: 'planTrip', arguments: {} })), '3 days in Lisbon', 'two answers at once');
      expectEqual(rounds, modern ? [['destination', 'length']] : [], `rounds (${modern ? '2026-07-28' : '2025-11-25'})`);
      await client.close();
    }
    for (const [modern, expectedRuns] of [
      [false, 1],
      [true, 3],
    ] as const) {
      runs = 0;
      const client = await connect(listener.url, confirmingClient(modern, { action: 'accept', content: {} }));
      expectEqual(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'accept accept', 'two answers');
      expectEqual(runs, expectedRuns, `runs (${modern ? '2026-07-28' : '2025-11-25'})`);
      await client.close();
    }
  } finally {
    await listener.close();
    await travel.close();
  }
}

/** Page claims: tools, prompts and resources ask on both revisions; a DTO that cannot be a form fails at the call. */
async function limits(): Promise<void> {
  class Address {
    @IsString()
    city!: string;
  }
  class Nested {
    @ValidateNested()
    @Type(() => Address)
    address!: Address;
  }
  @McpServer({ name: 'limits', version: '1.0.0' })
  class LimitsServer {
    @Tool({ description: 'Asks for a nested DTO' })
    async nested(ctx: Context) {
      return ctx.elicit('Where?', Nested);
    }
    @Resource({ uri: 'limits://asks', name: 'asks' })
    async asks(ctx: Context) {
      const answer = await ctx.elicit('Which?', DeleteConfirmation);
      return answer.action;
    }
    @Prompt({ description: 'Asks too' })
    async asking(ctx: Context) {
      const answer = await ctx.elicit('Which?', DeleteConfirmation);
      return answer.action;
    }
  }
  const reported: string[] = [];
  // The nested DTO's failure is the author's mistake, masked for callers unless exposeErrors.
  const listener = await createMcpApp(LimitsServer, {
    exposeErrors: true,
    onError: (error) => reported.push((error as Error).message),
  }).listenHttp({ port: 0 });
  try {
    for (const modern of [false, true]) {
      const client = await connect(listener.url, confirmingClient(modern, { action: 'decline' }));
      const nested = await client.callTool({ name: 'nested', arguments: {} });
      expectEqual([nested.isError, textOf(nested)], [true, outputs['not-a-form']], 'nested DTO');
      const read = await client.readResource({ uri: 'limits://asks' });
      const prompt = await client.getPrompt({ name: 'asking' });
      expectEqual(
        [(read.contents[0] as { text: string }).text, (prompt.messages[0]?.content as { text?: string } | undefined)?.text],
        ['decline', 'decline'],
        'elicit in a resource and a prompt, on both revisions',
      );
      await client.close();
    }
    expectEqual(reported.length, 2, 'only the nested DTO (once per revision) went to onError, not the resource or the prompt');
  } finally {
    await listener.close();
  }
}

/** Two instances behind a round-robin "load balancer": the answer round lands on the other instance. */
async function twoInstances(): Promise<void> {
  // #region shared-key
  // Every instance gets the same secret, e.g. REQUEST_STATE_KEY=$(openssl rand -base64 32) from your secret store.
  const instance = () => createMcpApp(ReposServer, { requestStateKey: process.env.REQUEST_STATE_KEY });
  // #endregion
  const previous = process.env.REQUEST_STATE_KEY;
  const yes = { action: 'accept', content: { repository: 'acme/old-site' } };
  const states: string[] = [];
  const call = async (apps: ReturnType<typeof instance>[], tamper = false, answer: Record<string, unknown> = yes, delayMs = 0) => {
    const listeners = await Promise.all(apps.map((app) => app.listenHttp({ port: 0 })));
    let next = 0;
    const roundRobin: FetchLike = async (_url, init) => {
      const target = (listeners[next++ % listeners.length] as HttpListener).url;
      const state = typeof init?.body === 'string' ? /"requestState":"([^"]+)"/.exec(init.body)?.[1] : undefined;
      if (state) states.push(state);
      const body = typeof init?.body === 'string' && tamper ? init.body.replace(/"requestState":"(.)/, '"requestState":"X$1') : init?.body;
      return fetch(target, { ...init, body });
    };
    const client = confirmingClient(true, answer);
    if (delayMs > 0) {
      client.setRequestHandler('elicitation/create', async () => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return answer as never;
      });
    }
    await connect((listeners[0] as HttpListener).url, client, roundRobin);
    try {
      return await client.callTool({ name: 'deleteRepository', arguments: { repository: 'acme/old-site' } }).then(
        (result) => textOf(result),
        (error: ProtocolError) => `${error.code} ${error.message}`,
      );
    } finally {
      await client.close();
      await Promise.all(listeners.map((l) => l.close()));
    }
  };
  try {
    process.env.REQUEST_STATE_KEY = randomBytes(32).toString('base64');
    expectEqual(await call([instance(), instance()]), 'Deleted acme/old-site.', 'same key: the other instance accepts the state');
    expectEqual(await call([instance()], true), '-32602 Invalid or expired requestState', 'a tampered state is refused');
    // Signed, not encrypted: the client can read the state (the answers of earlier rounds, none
    // here; the questions it may answer next; a hash binding it to this caller, tool and arguments).
    const body = Buffer.from((states[0] as string).split('.')[1] as string, 'base64url').toString('utf8');
    const payload = JSON.parse(body).p as { answers: unknown; asked: unknown; bind: unknown };
    expectEqual([payload.answers, payload.asked, typeof payload.bind], [{}, ['armature_0'], 'string'], 'the state is readable');
    // An answer later than requestStateTtlSeconds is refused.
    const shortLived = () => createMcpApp(ReposServer, { requestStateKey: process.env.REQUEST_STATE_KEY, requestStateTtlSeconds: 1 });
    expectEqual(await call([shortLived()], false, yes, 2_100), '-32602 Invalid or expired requestState', 'an expired state');
    let short = '';
    try {
      createMcpApp(ReposServer, { requestStateKey: 'too short' });
    } catch (error) {
      short = (error as Error).message;
    }
    expectEqual(short, 'createRequestStateCodec: key must be at least 32 bytes (got 9)', 'a short key');
    delete process.env.REQUEST_STATE_KEY;
    expectEqual(
      await call([instance(), instance()]),
      '-32602 Invalid or expired requestState',
      'a key per process: the other instance refuses the state',
    );
  } finally {
    if (previous === undefined) delete process.env.REQUEST_STATE_KEY;
    else process.env.REQUEST_STATE_KEY = previous;
  }
}

export async function main(): Promise<void> {
  // #region serve
  const app = createMcpApp(ReposServer);
  const listener = await app.listenHttp({ port: 0 }); // 2026-07-28 is served over HTTP only
  // #endregion
  try {
    await bothRevisions(listener, Container.get(RepoStore));
    await capabilities(listener);
  } finally {
    await listener.close();
  }
  await rawSchema();
  await urlMode();
  await severalQuestions();
  await limits();
  await twoInstances();
}
