import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, McpError, McpServer, Tool, ToolError } from '../src/index.js';
import { type Connected, connectInMemory } from './support/clients.js';

const thrown: Record<string, () => unknown> = {
  error: () => {
    throw new Error('No user with id 7. Call list_users to see valid ids.');
  },
  async: async () => {
    await Promise.resolve();
    throw new Error('async failure');
  },
  tool_error: () => {
    throw new ToolError('Quota exceeded', { retryAfterSeconds: 30 });
  },
  string: () => {
    throw 'plain string';
  },
  null: () => {
    throw null;
  },
  undefined: () => {
    throw undefined;
  },
  object: () => {
    throw { code: 42 };
  },
  mcp: () => {
    throw new McpError(-32001, 'Not authorised for this workspace', { workspace: 'w1' });
  },
};

const reported: Array<{ tool: string; requestId: unknown; error: unknown }> = [];

@McpServer({ name: 'errors', version: '1.0.0' })
class ErrorServer {
  @Tool({ description: 'throws what it is told', inputSchema: { type: 'object', properties: { kind: { type: 'string' } } } })
  fail(input: { kind: string }) {
    return thrown[input.kind]?.();
  }

  @Tool({ description: 'works' })
  ok() {
    return 'still here';
  }
}

let connection: Connected;
beforeAll(async () => {
  // Messages as thrown (exposeErrors); what callers read without it is tested in pipeline.test.ts.
  connection = await connectInMemory(
    createMcpApp(ErrorServer, { exposeErrors: true, onError: (error, info) => reported.push({ ...info, error }) }),
  );
});
afterAll(() => connection.close());

const fail = (kind: string) => connection.client.callTool({ name: 'fail', arguments: { kind } });
const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0]?.text;

describe('errors thrown by tools', () => {
  it('an Error becomes an isError result carrying its message; the session stays open', async () => {
    const result = await fail('error');
    expect(result).toEqual({ content: [{ type: 'text', text: 'No user with id 7. Call list_users to see valid ids.' }], isError: true });
    expect(textOf(await fail('async'))).toBe('async failure');
    expect(textOf(await connection.client.callTool({ name: 'ok', arguments: {} }))).toBe('still here');
  });

  it('a ToolError is an intentional failure: its details become structuredContent and it is not reported', async () => {
    reported.length = 0;
    expect(await fail('tool_error')).toEqual({
      content: [{ type: 'text', text: 'Quota exceeded' }],
      structuredContent: { retryAfterSeconds: 30 },
      isError: true,
    });
    expect(reported).toEqual([]);
  });

  it('non-Error values (string, null, undefined, objects) are answered too, and reported with the request id', async () => {
    reported.length = 0;
    expect(textOf(await fail('string'))).toBe('plain string');
    expect(textOf(await fail('null'))).toBe('the tool failed (it threw null)');
    expect(textOf(await fail('undefined'))).toBe('the tool failed (it threw undefined)');
    // A thrown object's contents stay on the server (onError gets it whole).
    expect(textOf(await fail('object'))).toBe(
      'the tool failed: it threw an object, not an Error; throw an Error or a ToolError with a message',
    );
    expect(reported.map((r) => [r.tool, typeof r.requestId, r.error])).toEqual([
      ['fail', 'number', 'plain string'],
      ['fail', 'number', null],
      ['fail', 'number', undefined],
      ['fail', 'number', { code: 42 }],
    ]);
  });

  it('McpError becomes a JSON-RPC error with its code, message and data', async () => {
    const error = await fail('mcp').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32001, data: { workspace: 'w1' } });
    expect((error as Error).message).toContain('Not authorised for this workspace');
  });

  it('an unknown tool is a JSON-RPC -32602 error that lists the tools', async () => {
    const error = await connection.client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32602 });
    expect((error as Error).message).toContain('Unknown tool: "nope". Available tools: fail, ok');
  });
});
