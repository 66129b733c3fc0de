import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { sessionState } from '../../seams/sdk-session-state.js';
import type { SessionRecord } from '../../state/app-state.js';
import type { SessionTransport } from './session-transport.js';

const SYNTHETIC_URL = 'http://armature.invalid/mcp';

/**
 * The fallback when the SDK's session state cannot be written directly (`sessionState()` found the
 * SDK not as expected): feeds one message the client once sent through a re-created session's
 * transport, storing no event and discarding the answer.
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
 * Brings a freshly connected session's server and transport to the session's stored state (how
 * another instance's copy of a session comes to be in the state the client put it in): initialized
 * with the negotiated revision, the client's capabilities and info, and the log level it set.
 */
export async function reviveSession(server: Server, transport: SessionTransport, id: string, record: SessionRecord): Promise<void> {
  const writer = await sessionState();
  if (writer) transport.restore(writer, server, id, record);
  else {
    const { protocolVersion, capabilities, clientInfo } = record;
    await replay(
      transport,
      { jsonrpc: '2.0', id: 'armature/revive', method: 'initialize', params: { protocolVersion, capabilities, clientInfo } },
      {},
    );
  }
  if (record.logLevel) await applyLogLevel(server, transport, id, record.protocolVersion, record.logLevel);
}

/** Sets the log level on this instance's copy of a session (set by the client through another instance). */
export async function applyLogLevel(server: Server, transport: SessionTransport, id: string, protocolVersion: string, level: string) {
  const writer = await sessionState();
  if (writer) return writer.setLogLevel(server, id, level);
  await replay(transport, { jsonrpc: '2.0', id: 'armature/log-level', method: 'logging/setLevel', params: { level } } as JSONRPCMessage, {
    'mcp-session-id': id,
    'mcp-protocol-version': protocolVersion,
  });
}
