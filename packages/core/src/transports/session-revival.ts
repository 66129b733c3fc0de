import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SessionRecord } from '../state/app-state.js';
import type { SessionTransport } from './session-transport.js';

const SYNTHETIC_URL = 'http://armature.invalid/mcp';

/**
 * Feeds one message the client once sent through a re-created session's transport, storing no
 * event and discarding the answer: how another instance's copy of a session comes to be in the
 * state the client put it in (the SDK keeps that state in its server and transport objects).
 */
async function replay(transport: SessionTransport, message: JSONRPCMessage, headers: Record<string, string>): Promise<void> {
  const request = new Request(SYNTHETIC_URL, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(message),
  });
  const run = async () => {
    const response = await transport.handleRequest(request, { parsedBody: message });
    await response.text();
  };
  await (transport.events ? transport.events.muting(run) : run());
}

/**
 * Brings a freshly connected transport and server to the session's stored state: initialized with
 * the negotiated revision, the client's capabilities and info, and the log level it set.
 */
export async function reviveSession(transport: SessionTransport, id: string, record: SessionRecord): Promise<void> {
  const { protocolVersion, capabilities, clientInfo } = record;
  await replay(
    transport,
    { jsonrpc: '2.0', id: 'armature/revive', method: 'initialize', params: { protocolVersion, capabilities, clientInfo } },
    {},
  );
  if (record.logLevel) await applyLogLevel(transport, id, protocolVersion, record.logLevel);
}

/** Sets the log level on this instance's copy of a session (set by the client through another instance). */
export function applyLogLevel(transport: SessionTransport, id: string, protocolVersion: string, level: string): Promise<void> {
  return replay(transport, { jsonrpc: '2.0', id: 'armature/log-level', method: 'logging/setLevel', params: { level } } as JSONRPCMessage, {
    'mcp-session-id': id,
    'mcp-protocol-version': protocolVersion,
  });
}
