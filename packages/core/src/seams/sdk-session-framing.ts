// Armature writes the SSE answers of 2025-11-25 session requests itself (node:http), as the SDK's
// session transport writes them: the same headers, events, event ids and priming event. Those rules
// are copied (transports/sse-format.ts), so before Armature answers any session request itself,
// `checkSessionFraming` has the SDK's transport answer a probe session's request and compares its
// response with what the copied rules write for the same messages. When they differ it says so once
// on stderr and every session request is framed by the SDK's transport instead.
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

/** A probe session's answer to a ping, from the SDK's transport: its response, and the events it stored. */
async function probeAnswer(resumable: boolean): Promise<{ response: Response; body: string; stored: [string, JSONRPCMessage][] }> {
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
  try {
    await mcp.connect(transport);
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } };
    await (await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params })).text();
    const response = await post(
      { jsonrpc: '2.0', id: 7, method: 'ping' },
      { 'mcp-session-id': PROBE_SESSION, 'mcp-protocol-version': '2025-11-25' },
    );
    return { response, body: await response.text(), stored };
  } finally {
    await mcp.close().catch(() => undefined);
  }
}

/** What differs between the SDK's answers to a probe session's ping and `framing`'s (empty when nothing does). */
async function problemsOf(framing: SessionFraming): Promise<string[]> {
  const problems: string[] = [];
  try {
    const resumable = await probeAnswer(true);
    const [primingId] = resumable.stored.at(-2) ?? [''];
    const [answerId, answer] = resumable.stored.at(-1) ?? ['', {}];
    const plain = await probeAnswer(false);
    const expected = [framing.priming(primingId, RETRY_MS) + framing.frame(answer, answerId), framing.frame(answer)];
    for (const [i, { response, body }] of [resumable, plain].entries()) {
      for (const [key, value] of Object.entries(framing.headers)) {
        if (response.headers.get(key) !== value) problems.push(`the ${key} header is ${response.headers.get(key)}, not ${value}`);
      }
      if (response.status !== 200 || body !== expected[i]) problems.push(`an answer is framed as ${JSON.stringify(body)}`);
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
