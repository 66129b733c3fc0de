// Armature writes the SSE answers of 2025-11-25 session requests itself (node:http), and holds a
// session's GET stream, as the SDK's session transport writes them: the same headers, events, event
// ids and priming event, the same refusal of a second GET stream. Those rules are copied
// (transports/wire/sse-format.ts, messages/wire-messages.ts), so before Armature answers any session
// request itself, `checkSessionFraming` has the SDK's transport answer a probe session's request and
// GET stream and compares its responses with what the copied rules write for the same messages, and
// checks that it takes a JSON-RPC batch as large as Armature's rule says and refuses one message
// more. When they differ it says so once on stderr and every session request is framed by the SDK's
// transport instead.
import { type EventStore, type JSONRPCMessage, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { seamMessages } from '../messages/seam-messages.js';

/** How Armature frames a session's SSE answer (transports/sse-format.ts). */
export interface SessionFraming {
  /** The headers of a streamed answer. */
  readonly headers: Readonly<Record<string, string>>;
  /** One message as an event, with its event id in a resumable session. */
  frame(message: unknown, eventId?: string): string;
  /** The first event of a resumable stream. */
  priming(eventId: string, retryMs: number | undefined): string;
  /** The body refusing a second GET stream in a session. */
  readonly standaloneTaken: string;
  /** The most messages of a JSON-RPC batch the SDK's transport takes. */
  readonly maxBatch: number;
}

const PROBE_SESSION = 'armature-probe-session';
const RETRY_MS = 1_234;
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** An event store that hands out known ids and remembers what it stored, in order. */
function probeStore(stored: [string, JSONRPCMessage][]): EventStore {
  return {
    async storeEvent(streamId: string, message: JSONRPCMessage) {
      const id = `${streamId}#${stored.length}`;
      stored.push([id, message]);
      return id;
    },
    getStreamIdForEventId: async (eventId: string) => eventId.slice(0, eventId.indexOf('#')),
    replayEventsAfter: async () => '',
  };
}

/** A batch of `count` notifications. */
const notifications = (count: number) => Array.from({ length: count }, () => ({ jsonrpc: '2.0', method: 'notifications/initialized' }));

/** What the SDK's transport writes on a probe session's GET stream. */
interface ProbeStream {
  readonly response: Response;
  /** The first event written on it: a notification the server sent outside any request. */
  readonly event: string;
  /** The body refusing a second GET stream while it is open. */
  readonly refusal: string;
}

/** A probe session's answer to a ping, and its GET stream, from the SDK's transport; the events it stored. */
async function probeAnswer(
  resumable: boolean,
  maxBatch?: number,
): Promise<{ response: Response; body: string; stored: [string, JSONRPCMessage][]; stream: ProbeStream; batches?: number[] }> {
  const stored: [string, JSONRPCMessage][] = [];
  const mcp = new McpServer({ name: 'probe', version: '0' });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => PROBE_SESSION,
    ...(resumable ? { eventStore: probeStore(stored), retryInterval: RETRY_MS } : {}),
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    transport.handleRequest(
      new Request('http://armature.invalid/mcp', { method: 'POST', headers: { ...ACCEPT, ...headers }, body: JSON.stringify(body) }),
    );
  const inSession = { 'mcp-session-id': PROBE_SESSION, 'mcp-protocol-version': '2025-11-25' };
  const get = () =>
    transport.handleRequest(new Request('http://armature.invalid/mcp', { headers: { accept: 'text/event-stream', ...inSession } }));
  try {
    await mcp.connect(transport);
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } };
    await (await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params })).text();
    const response = await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, inSession);
    const body = await response.text();
    const opened = await get();
    const refusal = await (await get()).text();
    await transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const reader = (opened.body as ReadableStream<Uint8Array>).getReader();
    const event = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    // The largest batch it takes, and one message more.
    const stream = { response: opened, event, refusal };
    if (maxBatch === undefined) return { response, body, stored, stream };
    const batches = [(await post(notifications(maxBatch), inSession)).status, (await post(notifications(maxBatch + 1), inSession)).status];
    return { response, body, stored, stream, batches };
  } finally {
    await mcp.close().catch(() => undefined);
  }
}

/** What differs between the SDK's answers to a probe session's ping and `framing`'s (empty when nothing does). */
async function problemsOf(framing: SessionFraming): Promise<string[]> {
  const problems: string[] = [];
  try {
    const resumable = await probeAnswer(true);
    // Stored last: the ping's priming event and answer, then the notification on the GET stream.
    const [primingId] = resumable.stored.at(-3) ?? [''];
    const [answerId, answer] = resumable.stored.at(-2) ?? ['', {}];
    const plain = await probeAnswer(false, framing.maxBatch);
    const [notificationId, notification] = resumable.stored.at(-1) ?? ['', {}];
    const expected = [framing.priming(primingId, RETRY_MS) + framing.frame(answer, answerId), framing.frame(answer)];
    const expectedEvents = [framing.frame(notification, notificationId), framing.frame(notification)];
    // The largest batch it takes, and one message more.
    const [largest, beyond] = plain.batches ?? [];
    if (largest !== 202 || beyond !== 400)
      problems.push(`batches of ${framing.maxBatch} and one more are answered ${largest} and ${beyond}`);
    for (const [i, { response, body, stream }] of [resumable, plain].entries()) {
      for (const [key, value] of Object.entries({ ...framing.headers, 'mcp-session-id': PROBE_SESSION })) {
        for (const [what, { headers }] of [['an answer', response] as const, ['a GET stream', stream.response] as const]) {
          if (headers.get(key) !== value) problems.push(`the ${key} header of ${what} is ${headers.get(key)}, not ${value}`);
        }
      }
      if (response.status !== 200 || body !== expected[i]) problems.push(`an answer is framed as ${JSON.stringify(body)}`);
      if (stream.response.status !== 200 || stream.event !== expectedEvents[i]) {
        problems.push(`a GET stream's event is framed as ${JSON.stringify(stream.event)}`);
      }
      if (stream.refusal !== framing.standaloneTaken) problems.push(`a second GET stream is refused with ${stream.refusal}`);
    }
  } catch (error) {
    problems.push(`a probe session throws ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

let checked: Promise<boolean> | undefined;
let verdict = false;

/**
 * Checks once per process that the SDK's session transport frames answers as `framing` does (a
 * plain and a resumable session); true when it does. Until then, and when not, `framesAsSdk()`
 * is false.
 */
export function checkSessionFraming(framing: SessionFraming): Promise<boolean> {
  checked ??= problemsOf(framing).then((problems) => {
    if (problems.length > 0) process.stderr.write(seamMessages.sessionFramingOff(problems));
    verdict = problems.length === 0;
    return verdict;
  });
  return checked;
}

/** Whether Armature may frame session answers itself (the check passed). */
export function framesAsSdk(): boolean {
  return verdict;
}
