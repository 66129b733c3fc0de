import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Context, createMcpApp, McpServer, Tool } from '../src/index.js';
import type { SessionRecord } from '../src/state/app-state.js';
import { flipSessionStateCheck } from './support/flip-session-state.js';

// A session opened on another instance is re-created here from its stored record: the SDK's state
// of the session is written directly (seams/sdk-session-state.ts), no initialize is replayed to the
// server. When the seam's self-check finds the SDK not as expected, the record's initialize is
// replayed through the SDK's transport instead, and the session answers the same.

@McpServer({ name: 'revival', version: '1.0.0' })
class RevivalServer {
  @Tool({ description: 'logs at two levels, then answers' })
  async chatty(ctx: Context) {
    await ctx.log.info('quiet');
    await ctx.log.warning('loud');
    return 'done';
  }
}

const SESSION = 'revived-session';
const RECORD: SessionRecord = {
  protocolVersion: '2025-06-18',
  capabilities: { roots: { listChanged: true } },
  clientInfo: { name: 'elsewhere', version: '3' },
  initialized: true,
  logLevel: 'warning',
};

const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-session-id': SESSION,
  'mcp-protocol-version': RECORD.protocolVersion,
};

type Modules = {
  transport: typeof import('../src/transports/sessions/session-transport.js');
  revival: typeof import('../src/transports/sessions/session-revival.js');
};

/** Re-creates the session with `modules`, then talks to it; what the server knows and what it answers. */
async function revived({ transport: { SessionTransport }, revival: { reviveSession } }: Modules) {
  const app = createMcpApp(RevivalServer, { onError: () => undefined });
  const mcp = app.createServer();
  const transport = new SessionTransport({ sessionIdGenerator: () => SESSION });
  try {
    await mcp.connect(transport);
    await reviveSession(mcp.server, transport, SESSION, RECORD);
    const answers: string[] = [];
    for (const [id, method, params] of [
      [1, 'ping', {}],
      [2, 'tools/call', { name: 'chatty', arguments: {} }],
    ] as const) {
      const response = await transport.handleRequest(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        }),
      );
      answers.push(`${response.status} ${await response.text()}`);
    }
    const { server } = mcp;
    return {
      answers,
      known: [server.getNegotiatedProtocolVersion(), server.getClientCapabilities(), server.getClientVersion()],
    };
  } finally {
    await mcp.close();
    await app.close();
  }
}

const modules = async (): Promise<Modules> => ({
  transport: await import('../src/transports/sessions/session-transport.js'),
  revival: await import('../src/transports/sessions/session-revival.js'),
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a session re-created from its record', () => {
  it('is in the state the client put it in, and its server never sees an initialize', async () => {
    const initialize = vi.spyOn(Server.prototype as unknown as { _oninitialize(): unknown }, '_oninitialize');
    const { answers, known } = await revived(await modules());
    expect(initialize).not.toHaveBeenCalled();
    expect(known).toEqual([RECORD.protocolVersion, RECORD.capabilities, RECORD.clientInfo]);
    expect(answers[0]).toBe('200 event: message\ndata: {"result":{},"jsonrpc":"2.0","id":1}\n\n');
    // The log level set through another instance holds here: the warning goes out, the info does not.
    expect(answers[1]).toContain('"level":"warning","data":"loud"');
    expect(answers[1]).not.toContain('quiet');
    expect(answers[1]).toContain('{"type":"text","text":"done"}');
  });

  it('is re-created by replaying its initialize when the self-check fails, with the same answers, said once', async () => {
    const direct = await revived(await modules());
    flipSessionStateCheck();
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const initialize = vi.spyOn(Server.prototype as unknown as { _oninitialize(): unknown }, '_oninitialize');
    const replayed = await revived(await modules());
    expect(initialize).toHaveBeenCalledTimes(1);
    expect(said.mock.calls.join('')).toContain('the negotiated revision does not read back');
    expect(replayed).toEqual(direct);
  });
});
