import { IsInt, IsString, Min } from 'class-validator';
import { describe, expect, it, vi } from 'vitest';

// A runtime that refuses code generation from strings, as Cloudflare Workers do (the Workers check in
// apps/runtimes runs the real one): `new Function` throws workerd's EvalError for this file's
// modules, loaded after it (instanceof Function still works: the proxy forwards everything else).
const refuse = () => {
  throw new EvalError('Code generation from strings disallowed for this context');
};
vi.stubGlobal('Function', new Proxy(Function, { construct: refuse, apply: refuse }));

const { ArmatureBuildError, createMcpApp, McpServer, Tool } = await import('../../src/index.js');
const { connectInMemory } = await import('../support/clients.js');

class AddInput {
  @IsInt()
  @Min(0)
  a!: number;
  @IsString()
  label!: string;
}

describe('where code generation from strings is refused', () => {
  it('DTO tools validate as elsewhere (the closure shape check), with the same refusal', async () => {
    @McpServer({ name: 'no-eval', version: '1.0.0' })
    class NoEval {
      @Tool({ description: 'adds' })
      add(input: AddInput) {
        return `${input.label}: ${input.a + 1}`;
      }
    }
    const connected = await connectInMemory(createMcpApp(NoEval));
    try {
      const ok = await connected.client.callTool({ name: 'add', arguments: { a: 1, label: 'x' } });
      expect(ok.content).toEqual([{ type: 'text', text: 'x: 2' }]);
      const refused = await connected.client.callTool({ name: 'add', arguments: { a: 'one', label: 'x', extra: 1 } });
      expect(refused.isError).toBe(true);
      const text = (refused.content as { text: string }[])[0]?.text;
      expect(text).toContain('a: must be integer');
      expect(text).toContain('extra: unknown property; remove it');
    } finally {
      await connected.close();
    }
  });

  it('a hand-written schema, which only Ajv checks, refuses start-up naming the tool and why', () => {
    @McpServer({ name: 'raw', version: '1.0.0' })
    class Raw {
      @Tool({ description: 'd', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } })
      search() {
        return 'x';
      }
    }
    let problems: readonly { code?: string; where: string; message: string }[] = [];
    try {
      createMcpApp(Raw);
    } catch (error) {
      if (!(error instanceof ArmatureBuildError)) throw error;
      problems = error.problems;
    }
    expect(problems.map((p) => [p.code, p.where])).toEqual([['ARM128', 'Raw.search']]);
    expect(problems[0]?.message).toContain(
      '`inputSchema` is checked with Ajv, which compiles each schema to code; this runtime refuses code generation',
    );
  });
});
