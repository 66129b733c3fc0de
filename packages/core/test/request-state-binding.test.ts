import { IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, type HttpListener, McpServer, type TokenVerifier, Tool } from '../src/index.js';

// 2026-07-28 multi-round-trip calls carry their answers in a signed requestState. Signed is not
// enough: the state must be good for the call that earned it only (issue: isolation and limits).

class Target {
  @IsString() project!: string;
}

const deleted: string[] = [];

@McpServer({ name: 'round-trips', version: '1.0.0' })
class DangerServer {
  @Tool({ description: 'deletes a project after the user confirms', annotations: { destructiveHint: true } })
  async delete_project(input: Target, ctx: Context) {
    const answer = await ctx.elicit(`Delete ${input.project}?`, {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
    });
    if (answer.action !== 'accept' || answer.content.ok !== true) return 'kept';
    deleted.push(`${input.project} by ${ctx.principal?.clientId ?? 'anonymous'}`);
    return `deleted ${input.project}`;
  }

  @Tool({ description: 'asks two questions' })
  async two_questions(ctx: Context) {
    const first = await ctx.elicit('First?', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    const second = await ctx.elicit('Second?', { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] });
    return JSON.stringify([first, second]);
  }
}

const people: Record<string, { clientId: string; sub: string }> = {
  'token-alice': { clientId: 'app', sub: 'alice' },
  'token-bob': { clientId: 'app', sub: 'bob' },
};
const verifier: TokenVerifier = {
  async verify(token) {
    const who = people[token];
    if (!who) throw new Error('unknown token');
    return { token, clientId: who.clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 600, extra: { sub: who.sub } };
  },
};

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  deleted.length = 0;
  for (const close of cleanup.splice(0)) await close();
});

async function listen(withAuth = false): Promise<HttpListener> {
  const listener = await createMcpApp(DangerServer).listenHttp({
    port: 0,
    ...(withAuth ? { auth: { verifier, resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://issuer.example'] } } : {}),
  });
  cleanup.push(() => listener.close());
  return listener;
}

interface Answer {
  result?: { resultType?: string; requestState?: string; inputRequests?: Record<string, unknown>; content?: Array<{ text: string }> };
  error?: { code: number; message: string };
}

/** One raw 2026-07-28 tools/call over HTTP, as any client could send it. */
async function callTool(url: string, params: Record<string, unknown>, token?: string): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        },
      },
    }),
  });
  const text = await response.text();
  // The answer comes as JSON, or as one SSE event when the server streamed.
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return JSON.parse(json) as Answer;
}

const yes = { action: 'accept', content: { ok: true } };

describe('requestState is bound to the call that earned it (2026-07-28)', () => {
  it('completes the honest round trip', async () => {
    const { url } = await listen();
    const first = await callTool(url, { name: 'delete_project', arguments: { project: 'alpha' } });
    expect(first.result?.resultType).toBe('input_required');
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['armature_0']);
    const second = await callTool(url, {
      name: 'delete_project',
      arguments: { project: 'alpha' },
      requestState: first.result?.requestState,
      inputResponses: { armature_0: yes },
    });
    expect(second.result?.content?.[0]?.text).toBe('deleted alpha');
  });

  it('refuses a state replayed with other arguments', async () => {
    const { url } = await listen();
    const first = await callTool(url, { name: 'delete_project', arguments: { project: 'harmless' } });
    const replay = await callTool(url, {
      name: 'delete_project',
      arguments: { project: 'production' },
      requestState: first.result?.requestState,
      inputResponses: { armature_0: yes },
    });
    expect(replay.error).toEqual({
      code: -32602,
      message:
        'Invalid requestState: it was issued for another call (caller, tool or arguments differ). Start the call again without requestState.',
    });
    expect(deleted).toEqual([]);
  });

  it("refuses Bob's replay of Alice's state", async () => {
    const { url } = await listen(true);
    const alice = await callTool(url, { name: 'delete_project', arguments: { project: 'shared' } }, 'token-alice');
    expect(alice.result?.resultType).toBe('input_required');
    const bob = await callTool(
      url,
      {
        name: 'delete_project',
        arguments: { project: 'shared' },
        requestState: alice.result?.requestState,
        inputResponses: { armature_0: yes },
      },
      'token-bob',
    );
    expect(bob.error?.code).toBe(-32602);
    expect(bob.error?.message).toContain('it was issued for another call');
    expect(deleted).toEqual([]);
  });

  it('refuses answers sent without a state, and answers to questions not asked', async () => {
    const { url } = await listen();
    const unsolicited = await callTool(url, { name: 'delete_project', arguments: { project: 'x' }, inputResponses: { armature_0: yes } });
    expect(unsolicited.error?.message).toBe(
      'Invalid requestState: inputResponses came without the requestState of the round that asked. Start the call again without requestState.',
    );
    const first = await callTool(url, { name: 'delete_project', arguments: { project: 'x' } });
    const extra = await callTool(url, {
      name: 'delete_project',
      arguments: { project: 'x' },
      requestState: first.result?.requestState,
      inputResponses: { armature_0: yes, armature_5: yes },
    });
    expect(extra.error?.message).toContain('inputResponses answers "armature_5", which this call did not ask');
    expect(deleted).toEqual([]);
  });

  it('keeps signed answers: a later round cannot change an earlier answer', async () => {
    const { url } = await listen();
    const first = await callTool(url, { name: 'two_questions', arguments: {} });
    const second = await callTool(url, {
      name: 'two_questions',
      arguments: {},
      requestState: first.result?.requestState,
      inputResponses: { armature_0: { action: 'accept', content: { a: 'original' } } },
    });
    expect(Object.keys(second.result?.inputRequests ?? {})).toEqual(['armature_1']);
    const rewrite = await callTool(url, {
      name: 'two_questions',
      arguments: {},
      requestState: second.result?.requestState,
      inputResponses: {
        armature_0: { action: 'accept', content: { a: 'rewritten' } },
        armature_1: { action: 'accept', content: { b: 'x' } },
      },
    });
    expect(rewrite.error?.message).toContain('inputResponses answers "armature_0", which this call did not ask');
    const honest = await callTool(url, {
      name: 'two_questions',
      arguments: {},
      requestState: second.result?.requestState,
      inputResponses: { armature_1: { action: 'accept', content: { b: 'x' } } },
    });
    expect(honest.result?.content?.[0]?.text).toBe(
      JSON.stringify([
        { action: 'accept', content: { a: 'original' } },
        { action: 'accept', content: { b: 'x' } },
      ]),
    );
  });
});
