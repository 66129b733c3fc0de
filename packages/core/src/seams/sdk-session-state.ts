// The one module that writes the state the SDK keeps of a 2025-11-25 session (`.ci/lint-seams.mjs`
// fails on any other that reaches these members): what the client's `initialize` set on the
// session's server (its capabilities, its info, the negotiated revision) and on its transport (the
// session initialized under its id), and the log level it set. A session opened on another instance
// is brought to that state from its stored record, without a handshake replayed to this instance's
// server. Before first use `sessionState()` restores a probe session and checks that the SDK's public
// getters, its log filter and its transport then see what was restored; when not, it says so once on
// stderr, returns undefined, and sessions are re-created by replaying the client's `initialize`
// through the SDK's transport instead (transports/session-revival.ts).
import {
  type ClientCapabilities,
  type Implementation,
  McpServer,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { seamMessages } from '../messages/seam-messages.js';

/** What the client told in its `initialize`, as a session's record keeps it. */
export interface InitializedState {
  readonly protocolVersion: string;
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation;
}

/** Writes a session's state into the SDK's objects. */
export interface SessionState {
  /** `server` and `transport` as after the client's `initialize` in session `sessionId`. */
  restore(server: Server, transport: WebStandardStreamableHTTPServerTransport, sessionId: string, state: InitializedState): void;
  /**
   * `transport` as after it took a client's `initialize` in session `sessionId` (when Armature
   * answers the handshake itself): the server's part is then set by the server, from the request.
   */
  initialized(transport: WebStandardStreamableHTTPServerTransport, sessionId: string): void;
  /** The log level the client set with `logging/setLevel` in session `sessionId`. */
  setLogLevel(server: Server, sessionId: string, level: string): void;
}

interface ServerMembers {
  _clientCapabilities: ClientCapabilities | undefined;
  _clientVersion: Implementation | undefined;
  _negotiatedProtocolVersion: string | undefined;
  _loggingLevels: Map<string | undefined, string>;
  isMessageIgnored(level: string, sessionId: string | undefined): boolean;
}

interface TransportMembers {
  _initialized: boolean;
  sessionId: string | undefined;
}

const state: SessionState = Object.freeze({
  restore(server: Server, transport: WebStandardStreamableHTTPServerTransport, sessionId: string, restored: InitializedState) {
    const members = server as unknown as ServerMembers;
    members._clientCapabilities = restored.capabilities;
    members._clientVersion = restored.clientInfo;
    members._negotiatedProtocolVersion = restored.protocolVersion;
    state.initialized(transport, sessionId);
  },
  initialized(transport: WebStandardStreamableHTTPServerTransport, sessionId: string) {
    const wire = transport as unknown as TransportMembers;
    wire.sessionId = sessionId;
    wire._initialized = true;
  },
  setLogLevel(server: Server, sessionId: string, level: string) {
    (server as unknown as ServerMembers)._loggingLevels.set(sessionId, level);
  },
});

const PROBE_ID = 'armature-probe-session';
const PROBE: InitializedState = {
  protocolVersion: '2025-06-18',
  capabilities: { roots: { listChanged: true } },
  clientInfo: { name: 'probe-client', version: '1' },
};

/** What is not as expected once a probe session is restored (empty when all is). */
async function problemsOf(): Promise<string[]> {
  const mcp = new McpServer({ name: 'probe', version: '0' }, { capabilities: { logging: {} } });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'unused' });
  const problems: string[] = [];
  try {
    const { server } = mcp;
    const members = server as unknown as Record<string, unknown>;
    for (const member of ['_loggingLevels', 'isMessageIgnored'] as const) {
      if (members[member] === undefined) problems.push(`Server.${member} is missing`);
    }
    if (problems.length > 0) return problems;
    await mcp.connect(transport);
    state.restore(server, transport, PROBE_ID, PROBE);
    state.setLogLevel(server, PROBE_ID, 'error');
    if (JSON.stringify(server.getClientCapabilities()) !== JSON.stringify(PROBE.capabilities))
      problems.push('the client capabilities do not read back');
    if (server.getClientVersion()?.name !== PROBE.clientInfo.name) problems.push('the client info does not read back');
    if (server.getNegotiatedProtocolVersion() !== PROBE.protocolVersion) problems.push('the negotiated revision does not read back');
    if (!(server as unknown as ServerMembers).isMessageIgnored('info', PROBE_ID)) problems.push('the log level is not applied');
    // The transport serves the session: a notification in it is accepted (202), not refused as uninitialized (400).
    const response = await transport.handleRequest(
      new Request('http://armature.invalid/mcp', {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-session-id': PROBE_ID,
          'mcp-protocol-version': PROBE.protocolVersion,
        },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      }),
    );
    if (response.status !== 202) problems.push(`a restored session's transport answers ${response.status}`);
  } catch (error) {
    problems.push(`restoring a session throws ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await mcp.close().catch(() => undefined);
  }
  return problems;
}

let checked: Promise<SessionState | undefined> | undefined;

/**
 * The writer of a session's SDK state once checked (on the first call, for the whole process), or
 * undefined when the SDK is not as expected: the reason is then written once on stderr and
 * sessions are re-created by replaying the client's `initialize` through the SDK's transport.
 */
export function sessionState(): Promise<SessionState | undefined> {
  checked ??= problemsOf().then((problems) => {
    if (problems.length === 0) return state;
    process.stderr.write(seamMessages.sessionStateOff(problems));
    return undefined;
  });
  return checked;
}
