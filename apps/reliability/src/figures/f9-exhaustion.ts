// Figure 9 (issue 9): one client cannot exhaust what the server holds for everyone. A session
// flood from one address stops at maxSessionsPerClient while another address is still served; a
// flood from several addresses stops at maxSessions with 503 + Retry-After; half-open sessions are
// closed; one client cannot take the subscriptions/listen pool; the event store stays within its
// byte budget and gives its memory back when the session ends. Distinct clients are distinct
// loopback source addresses (127.0.0.2, 127.0.0.3, ...), which Linux routes to 127.0.0.1.
import { Agent, type ClientRequest, type IncomingMessage, request } from 'node:http';
import { type ServerProcess, withServer } from '../child.js';
import { Checks, type Mode, mb, n } from '../report.js';
import type { MemoryReport } from '../server/protocol.js';
import { JSON_HEADERS, modernHeaders, parseBody } from '../wire/http-peer.js';
import { callRequest, INITIALIZED, initializeRequest, PROTOCOL_2025, PROTOCOL_2026 } from '../wire/jsonrpc.js';

const MB = 1024 * 1024;

interface Answer {
  status: number;
  retryAfter?: string;
  session?: string;
  text: string;
  /** Still open (an SSE stream): destroy it when done. */
  stream?: { req: ClientRequest; res: IncomingMessage };
}

const agents = new Map<string, Agent>();

/** A keep-alive agent whose connections leave from `from`. */
function agentFor(from: string): Agent {
  let agent = agents.get(from);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: 8, timeout: 2_000, localAddress: from } as ConstructorParameters<typeof Agent>[0]);
    agents.set(from, agent);
  }
  return agent;
}

/** One request from `from` (a loopback source address); an SSE answer is kept open after its first event. */
function send(url: string, from: string, body: unknown, headers: Record<string, string>, method = 'POST', stream = false): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        ...(stream ? { agent: false, localAddress: from } : { agent: agentFor(from) }),
        headers: { ...JSON_HEADERS, ...headers },
      },
      (res) => {
        const base = {
          status: res.statusCode ?? 0,
          retryAfter: res.headers['retry-after'] as string | undefined,
          session: res.headers['mcp-session-id'] as string | undefined,
        };
        let text = '';
        const sse = res.headers['content-type']?.includes('text/event-stream') ?? false;
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          // A listen stream stays open: its acknowledgement is the answer.
          if (sse && /^data: \{/m.test(text) && !/"result"/.test(text)) {
            req.setTimeout(0);
            resolve({ ...base, text, stream: { req, res } });
          }
        });
        res.on('end', () => resolve({ ...base, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function errorOf(answer: Answer): { code?: unknown; message?: unknown } | undefined {
  return parseBody(
    answer.stream || answer.text.startsWith('id:') || answer.text.startsWith('event:') ? 'text/event-stream' : 'application/json',
    answer.text,
  ).messages[0]?.error;
}

async function openSession(url: string, from: string, initialized = true): Promise<Answer> {
  const init = await send(url, from, initializeRequest(1), {});
  if (init.status === 200 && init.session && initialized) {
    await send(url, from, INITIALIZED, { 'mcp-session-id': init.session, 'mcp-protocol-version': PROTOCOL_2025 });
  }
  return init;
}

/** `total` calls of `open`, 10 at a time (a flood, without a thousand sockets at once). */
async function flood(total: number, open: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < total; i += 10) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(10, total - i) }, (_, k) => open(i + k)))));
  }
  return answers;
}

function count(answers: Answer[], status: number): number {
  return answers.filter((a) => a.status === status).length;
}

async function heap(server: ServerProcess): Promise<number> {
  return (await server.ask<MemoryReport>({ cmd: 'memory', gc: true })).heapUsed;
}

function listenRequest(id: number): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications: { toolsListChanged: true },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_2026,
        'io.modelcontextprotocol/clientInfo': { name: 'reliability', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

export async function figure9(mode: Mode): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  const measured: string[] = [];

  // Sessions with the defaults: 100 per client.
  const floodSize = mode.quick ? 120 : 1_000;
  await withServer({ transport: 'http' }, async (server) => {
    const url = server.url as string;
    const before = await heap(server);
    const answers = await flood(floodSize, () => openSession(url, '127.0.0.1'));
    const after = await heap(server);
    const other = await openSession(url, '127.0.0.2');
    const refused = answers.filter((a) => a.status === 429);
    checks.line(
      `one client sent ${n(floodSize)} initialize: ${count(answers, 200)} sessions, ${refused.length} refused 429 ` +
        `(Retry-After ${refused[0]?.retryAfter ?? 'missing'}); heap after GC ${mb(after - before)}; another client then: ${other.status}`,
    );
    checks.expect(count(answers, 200) === 100, `one client holds ${count(answers, 200)} sessions (limit: maxSessionsPerClient 100)`);
    checks.expect(
      refused.length === floodSize - 100 && refused.every((a) => a.retryAfter === '5'),
      'every initialize beyond the cap is 429 with Retry-After',
    );
    checks.expect(other.status === 200, `another client is still served (got ${other.status})`);
    checks.target(after - before < 32 * MB, `100 sessions hold ${mb(after - before)} of heap (limit 32 MB)`);
    measured.push(`sessions: ${count(answers, 200)}/${n(floodSize)} kept per client`);
  });

  // One server for the rest: the event store first (1 MB results, more than the 32 MiB budget;
  // memory given back on DELETE), then half-open sessions, then sessions in all at maxSessions.
  const total = mode.quick ? 120 : 500;
  const results = mode.quick ? 36 : 100;
  await withServer(
    { transport: 'http', httpOptions: { maxSessions: total, sessionInitializeTimeoutMs: 500, eventStore: true } },
    async (server) => {
      const url = server.url as string;
      const storeBaseline = await heap(server);
      const storeSession = (await openSession(url, '127.0.0.1')).session as string;
      const storeHeaders = { 'mcp-session-id': storeSession, 'mcp-protocol-version': PROTOCOL_2025 };
      const token = 'z'.repeat(MB);
      let answered = 0;
      for (let i = 0; i < results; i++) {
        const answer = await send(url, '127.0.0.1', callRequest(i + 10, 'echo', { token }), storeHeaders);
        if (answer.status === 200 && answer.text.includes('zzzz')) answered++;
      }
      const full = await heap(server);
      await send(url, '127.0.0.1', undefined, storeHeaders, 'DELETE');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const afterDelete = await heap(server);
      checks.line(
        `${results} results of 1 MB kept for resuming: heap after GC ${mb(full - storeBaseline)} (budget 32 MiB); after DELETE ${mb(afterDelete - storeBaseline)}`,
      );
      checks.expect(answered === results, `${answered}/${results} calls answered`);
      checks.target(full - storeBaseline < 40 * MB, `the event store holds ${mb(full - storeBaseline)} (limit: 32 MiB budget + 8 MB)`);
      checks.target(
        afterDelete - storeBaseline < 8 * MB,
        `after DELETE ${mb(afterDelete - storeBaseline)} remain (limit 8 MB: the session's events are purged)`,
      );
      measured.push(`event store ${mb(full - storeBaseline, 1).slice(1)} -> ${mb(afterDelete - storeBaseline, 1).slice(1)} after DELETE`);

      const halfOpen = await flood(20, () => openSession(url, '127.0.0.2', false));
      // None of them sends notifications/initialized: all are closed after sessionInitializeTimeoutMs.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const probe = await Promise.all(
        halfOpen.map((a) =>
          send(
            url,
            '127.0.0.2',
            { jsonrpc: '2.0', id: 2, method: 'ping' },
            { 'mcp-session-id': a.session ?? '', 'mcp-protocol-version': PROTOCOL_2025 },
          ),
        ),
      );
      checks.line(
        `20 sessions without notifications/initialized: ${count(probe, 404)}/20 gone (404) after 1.2 s (sessionInitializeTimeoutMs 500)`,
      );
      checks.expect(
        count(halfOpen, 200) === 20 && count(probe, 404) === 20,
        'half-open sessions are closed after sessionInitializeTimeoutMs',
      );

      const addresses = Math.ceil(total / 100) + 1;
      const answers = await flood(addresses * 100, (i) => openSession(url, `127.0.0.${Math.floor(i / 100) + 3}`));
      const refused = answers.filter((a) => a.status === 503);
      checks.line(
        `${addresses} clients sent ${n(answers.length)} initialize against maxSessions ${total}: ${count(answers, 200)} sessions, ` +
          `${refused.length} refused 503 (Retry-After ${refused[0]?.retryAfter ?? 'missing'})`,
      );
      checks.expect(count(answers, 200) === total, `${count(answers, 200)} sessions open (limit: maxSessions ${total})`);
      checks.expect(
        refused.length > 0 && refused.every((a) => a.retryAfter === '30'),
        'initialize beyond maxSessions is 503 with Retry-After',
      );
      measured.push(`${count(answers, 200)}/${n(answers.length)} kept in all`);
    },
  );

  // subscriptions/listen: 16 per client by default; another client still gets one.
  const tries = 24;
  await withServer({ transport: 'http' }, async (server) => {
    const url = server.url as string;
    const headers = modernHeaders('subscriptions/listen');
    const answers: Answer[] = [];
    try {
      for (let i = 0; i < tries; i++) answers.push(await send(url, '127.0.0.1', listenRequest(i + 1), headers, 'POST', true));
      const other = await send(url, '127.0.0.2', listenRequest(100), headers, 'POST', true);
      answers.push(other);
      const open = answers.slice(0, tries).filter((a) => a.stream).length;
      const refusal = answers.slice(0, tries).find((a) => !a.stream);
      const refusedError = refusal ? errorOf(refusal) : undefined;
      checks.line(
        `one client opened ${tries} listen streams: ${open} open, ${tries - open} refused (${String(refusedError?.code)} ${String(refusedError?.message).slice(0, 60)}…); another client: ${other.stream ? 'open' : 'refused'}`,
      );
      checks.expect(open === 16, `one client holds ${open} listen streams (limit: maxListenStreamsPerClient 16)`);
      checks.expect(refusedError?.code === -32603, 'a listen stream beyond the cap is refused -32603');
      checks.expect(other.stream !== undefined, 'another client still opens a listen stream');
      measured.push(`listen: ${open}/${tries} per client`);
    } finally {
      for (const a of answers) a.stream?.req.destroy();
    }
  });

  for (const agent of agents.values()) agent.destroy();
  agents.clear();
  checks.measured = measured.join('; ');
  return checks;
}
