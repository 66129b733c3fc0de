import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsString, ValidateNested } from 'class-validator';
import { Service } from 'typedi';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ArmatureBuildError,
  Context,
  createMcpApp,
  type ExecutionContext,
  type Guard,
  type Interceptor,
  McpError,
  McpServer,
  Prompt,
  RequestScoped,
  Resource,
  Tool,
  UseGuards,
  UseInterceptors,
} from '../src/index.js';
import { type Connected, connectHttp, connectInMemory } from './support/clients.js';

let connection: Connected | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

function buildError(make: () => unknown): ArmatureBuildError {
  try {
    make();
  } catch (error) {
    return error as ArmatureBuildError;
  }
  throw new Error('expected an ArmatureBuildError');
}

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
}

describe('one DI scope per request', () => {
  it('gives a guard, an interceptor and the tool the same @RequestScoped instance, and a new one per request', async () => {
    let made = 0;
    @RequestScoped()
    class Audit {
      readonly id = ++made;
      constructor(readonly ctx: Context) {}
    }
    const seen: Array<[string, number]> = [];
    @RequestScoped()
    class AuditGuard implements Guard {
      constructor(private readonly audit: Audit) {}
      canActivate(context: ExecutionContext) {
        if (context.phase === 'call') seen.push(['guard', this.audit.id]);
        return true;
      }
    }
    @RequestScoped()
    class AuditInterceptor implements Interceptor {
      constructor(private readonly audit: Audit) {}
      intercept(_context: ExecutionContext, next: () => Promise<unknown>) {
        seen.push(['interceptor', this.audit.id]);
        return next();
      }
    }
    @McpServer({ name: 'scoped', version: '1' })
    class ScopedServer {
      constructor(private readonly audit: Audit) {}
      @UseGuards(AuditGuard)
      @UseInterceptors(AuditInterceptor)
      @Tool({ description: 'shows the audit instance' })
      work(ctx: Context) {
        seen.push(['tool', this.audit.id]);
        return String(this.audit.ctx === ctx);
      }
    }
    const app = createMcpApp(ScopedServer);
    connection = await connectInMemory(app);
    expect(textOf(await connection.client.callTool({ name: 'work', arguments: {} }))).toBe('true');
    expect(textOf(await connection.client.callTool({ name: 'work', arguments: {} }))).toBe('true');
    expect(seen).toEqual([
      ['guard', 1],
      ['interceptor', 1],
      ['tool', 1],
      ['guard', 2],
      ['interceptor', 2],
      ['tool', 2],
    ]);
    expect(app.stats.liveScopes).toBe(0);
  });

  it('answers a call with the error of a registered guard that cannot be built, never a stand-in guard', async () => {
    @Service()
    class PolicyStore {
      constructor() {
        throw new Error('the policy store is down');
      }
    }
    @Service()
    class PolicyGuard implements Guard {
      constructor(readonly store: PolicyStore) {}
      canActivate() {
        return true;
      }
    }
    @McpServer({ name: 'broken-guard', version: '1' })
    class GuardedServer {
      @UseGuards(PolicyGuard)
      @Tool({ description: 'guarded' })
      work() {
        return 'ran';
      }
    }
    connection = await connectInMemory(createMcpApp(GuardedServer, { onError: () => undefined }));
    await expect(connection.client.callTool({ name: 'work', arguments: {} })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('the policy store is down'),
    });
  });

  it('asks guards in order whether each answers at once or with a promise, and stops at the first no', async () => {
    const asked: string[] = [];
    const guard = (name: string, answer: () => boolean | Promise<boolean>) => {
      @Service()
      class NamedGuard implements Guard {
        canActivate(execution: ExecutionContext) {
          // A refused call lists the tools the caller sees: only the call's own questions are kept.
          if (execution.phase === 'call') asked.push(`${name}:${execution.name}`);
          return answer();
        }
      }
      return NamedGuard;
    };
    const SyncYes = guard('sync-yes', () => true);
    const AsyncYes = guard('async-yes', async () => true);
    const AsyncNo = guard('async-no', async () => false);
    const SyncNo = guard('sync-no', () => false);
    const Never = guard('never', () => true);
    @McpServer({ name: 'mixed-guards', version: '1' })
    class MixedServer {
      @UseGuards(SyncYes, AsyncYes, SyncYes)
      @Tool({ description: 'allowed' })
      open() {
        return 'opened';
      }

      @UseGuards(SyncYes, AsyncNo, Never)
      @Tool({ description: 'refused after a promise' })
      later() {
        return 'ran';
      }

      @UseGuards(AsyncYes, SyncNo, Never)
      @Tool({ description: 'refused at once after a promise' })
      sooner() {
        return 'ran';
      }
    }
    connection = await connectInMemory(createMcpApp(MixedServer));
    expect(textOf((await connection.client.callTool({ name: 'open', arguments: {} })) as { content?: unknown })).toBe('opened');
    expect(asked).toEqual(['sync-yes:open', 'async-yes:open', 'sync-yes:open']);
    const askedFor = { later: ['sync-yes:later', 'async-no:later'], sooner: ['async-yes:sooner', 'sync-no:sooner'] };
    for (const name of ['later', 'sooner'] as const) {
      asked.length = 0;
      // A refused call is answered exactly like a call of a tool that does not exist.
      await expect(connection.client.callTool({ name, arguments: {} })).rejects.toMatchObject({
        message: expect.stringContaining(`Unknown tool: "${name}"`),
      });
      expect(asked).toEqual(askedFor[name]);
      expect(asked).not.toContain(`never:${name}`);
    }
  });

  it('reports at start-up a guard class the container does not provide and that cannot be constructed', () => {
    class NeedsConfig implements Guard {
      constructor() {
        throw new Error('missing API key');
      }
      canActivate() {
        return true;
      }
    }
    @McpServer({ name: 'unbuildable-guard', version: '1' })
    class Server {
      @UseGuards(NeedsConfig)
      @Tool({ description: 'guarded' })
      work() {
        return 'ran';
      }
    }
    const error = buildError(() => createMcpApp(Server));
    expect(error.problems).toEqual([
      {
        code: 'ARM303',
        where: 'Server.work',
        message:
          'the guard NeedsConfig is not provided by the container and constructing it with `new NeedsConfig()` failed: missing API key',
        fix: 'register NeedsConfig with the container (@Service() or @RequestScoped() with typedi), or pass an instance: @UseGuards(new NeedsConfig(...))',
      },
    ]);
  });
});

describe('start-up reports everything once', () => {
  it('lists builder and DI problems in one ArmatureBuildError', () => {
    class Unregistered {}
    @McpServer({ name: 'both', version: '1' })
    class Both {
      constructor(readonly dep: Unregistered) {}
      @Tool({ description: '' })
      work() {
        return 'x';
      }
    }
    const error = buildError(() => createMcpApp(Both));
    expect(error.problems.map((p) => [p.code, p.where])).toEqual([
      ['ARM108', 'Both.work'],
      ['ARM401', 'Unregistered'],
    ]);
    expect(error.message).toContain('Armature cannot start the MCP server: 2 problems in the decorated classes.');
  });
});

describe('ctx.elicit with a DTO that cannot be a form', () => {
  it('answers a tool error naming the class, every problem and its fix', async () => {
    class Street {
      @IsString() name!: string;
    }
    class Address {
      @ValidateNested() @Type(() => Street) street!: Street;
      @IsBoolean() confirmed!: boolean;
    }
    @McpServer({ name: 'elicit', version: '1' })
    class AskServer {
      @Tool({ description: 'asks for an address' })
      async ask(ctx: Context) {
        const answer = await ctx.elicit('Where to?', Address);
        return answer.action;
      }
    }
    // The author's mistake reaches the caller as it is only with exposeErrors (armature dev, @armature/testing).
    connection = await connectInMemory(createMcpApp(AskServer, { exposeErrors: true }), { elicitation: {} });
    const result = await connection.client.callTool({ name: 'ask', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Address cannot be used for elicitation: 1 problem in the DTO.\n' +
        '  1. Address.street: Address.street is a nested DTO; a form can only ask for strings, numbers, booleans and enums [ARM204]\n' +
        '     Fix: ask for Address.street with a separate elicitation, or make it a string, number, boolean or enum property',
    );
  });
});

class Units {
  @IsIn(['celsius', 'fahrenheit']) units!: string;
}

@McpServer({ name: 'kinds', version: '1' })
class KindsServer {
  @Prompt({ description: 'a forecast prompt' })
  forecast(args: Units) {
    return `in ${args.units}`;
  }

  @Prompt({ description: 'a prompt that refuses' })
  refusing(): string {
    throw new McpError(-32001, 'Not authorised for this workspace');
  }

  @Resource({ uri: 'test://locked', name: 'locked' })
  locked(): string {
    throw new McpError(-32001, 'Not authorised for this workspace');
  }

  @Resource({ uri: 'test://gone', name: 'gone' })
  gone(): string {
    throw new McpError(-32002, 'Resource is gone: test://gone');
  }
}

describe('prompts and resources on the one call path', () => {
  it('reports unknown prompt arguments with the other problems', async () => {
    connection = await connectInMemory(createMcpApp(KindsServer));
    await expect(connection.client.getPrompt({ name: 'forecast', arguments: { units: 'kelvin', city: 'Oslo' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'Invalid arguments for prompt "forecast":\ncity: unknown property; remove it\nunits: must be one of the following values: celsius, fahrenheit',
      ),
    });
  });

  for (const modern of [false, true]) {
    it(`keeps the code of an McpError thrown by a prompt or a resource (${modern ? '2026-07-28' : '2025-11-25'} over HTTP)`, async () => {
      const c = await connectHttp(createMcpApp(KindsServer), { modern });
      connection = c;
      const refused = { code: -32001, message: expect.stringContaining('Not authorised for this workspace') };
      await expect(c.client.getPrompt({ name: 'refusing' })).rejects.toMatchObject(refused);
      await expect(c.client.readResource({ uri: 'test://locked' })).rejects.toMatchObject(refused);
      // The SDK writes -32002 (resource not found) as -32602 on both revisions (2026-07-28 spec;
      // docs/errors-and-results.md says so).
      await expect(c.client.readResource({ uri: 'test://gone' })).rejects.toMatchObject({ code: -32602 });
    });
  }
});
