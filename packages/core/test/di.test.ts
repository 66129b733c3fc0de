import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { IsNumber } from 'class-validator';
import { ContainerInstance, Inject, Service } from 'typedi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  type Constructor,
  type ContainerAdapter,
  Context,
  createMcpApp,
  McpServer,
  RequestScoped,
  Tool,
  TypediContainerAdapter,
} from '../src/index.js';
import { connectInMemory } from './support/clients.js';

let catalogueInstances = 0;
const disposed: unknown[] = [];

@Service()
class Catalogue {
  readonly id = ++catalogueInstances;
  price(sku: string) {
    return sku.length * 100;
  }
}

@RequestScoped()
class Audit {
  readonly lines: string[] = [];
  constructor(readonly ctx: Context) {}
  record(line: string) {
    this.lines.push(`${String(this.ctx.requestId)}:${line}`);
  }
  [Symbol.dispose]() {
    disposed.push(this.lines.slice());
  }
}

class AddInput {
  @IsNumber()
  a!: number;
  @IsNumber()
  b!: number;
}

let serverInstances = 0;

@McpServer({ name: 'di', version: '1.0.0' })
class DiServer {
  readonly instance = ++serverInstances;
  @Inject(() => Catalogue)
  injectedCatalogue!: Catalogue;

  constructor(
    private readonly catalogue: Catalogue,
    private readonly audit: Audit,
    private readonly ctx: Context,
  ) {}

  @Tool({ description: 'who served me' })
  whoami(ctx: Context) {
    this.audit.record('whoami');
    return {
      server: this.instance,
      catalogue: this.catalogue.id,
      sameCatalogue: this.catalogue === this.injectedCatalogue,
      sameContext: this.ctx === ctx && this.audit.ctx === ctx,
    };
  }

  @Tool({ description: 'add' })
  add(input: AddInput) {
    return input.a + input.b;
  }
}

describe('dependency injection per request', () => {
  let connection: Awaited<ReturnType<typeof connectInMemory>>;
  const app = createMcpApp(DiServer);
  beforeAll(async () => {
    connection = await connectInMemory(app);
  });
  afterAll(() => connection.close());

  it('resolves a fresh server instance per call; singletons stay singletons; Context is the call one', async () => {
    const first = (await connection.client.callTool({ name: 'whoami', arguments: {} })).structuredContent as Record<string, unknown>;
    const second = (await connection.client.callTool({ name: 'whoami', arguments: {} })).structuredContent as Record<string, unknown>;
    expect(first).toMatchObject({ catalogue: 1, sameCatalogue: true, sameContext: true });
    expect(second.server).toBe((first.server as number) + 1);
    expect(second.catalogue).toBe(1);
    expect(catalogueInstances).toBe(1);
  });

  it('disposes each call scope in finally, calling dispose hooks of request-scoped instances', async () => {
    disposed.length = 0;
    await connection.client.callTool({ name: 'whoami', arguments: {} });
    expect(disposed).toHaveLength(1);
    expect((disposed[0] as string[])[0]).toMatch(/^\d+:whoami$/);
    expect(app.stats.liveScopes).toBe(0);
  });

  it('refuses at start-up what a call would trip over: Context in a singleton, unknown services, singletons over request-scoped ones', () => {
    @Service()
    class Leaky {
      constructor(readonly ctx: Context) {}
    }
    class NotAService {}
    @RequestScoped()
    class PerCall {
      constructor(readonly ctx: Context) {}
    }
    @Service()
    class Mid {
      constructor(readonly perCall: PerCall) {}
    }
    @McpServer({ name: 'leaky', version: '1' })
    class LeakyServer {
      constructor(
        readonly leaky: Leaky,
        readonly plain: NotAService,
        readonly mid: Mid,
      ) {}
      @Tool({ description: 'd' })
      go() {}
    }
    let problems: Array<{ where: string; message: string; fix: string }> = [];
    try {
      createMcpApp(LeakyServer);
    } catch (error) {
      expect(error).toBeInstanceOf(ArmatureBuildError);
      problems = [...(error as ArmatureBuildError).problems];
    }
    expect(problems).toEqual([
      {
        code: 'ARM402',
        where: 'Leaky',
        message: "Leaky (parameter 0 of LeakyServer) injects the request's Context but is a singleton",
        fix: 'mark Leaky @RequestScoped() so each call gets its own instance',
      },
      {
        code: 'ARM401',
        where: 'NotAService',
        message: 'NotAService (parameter 1 of LeakyServer) is not known to the container, so it cannot be injected',
        fix: 'decorate it with @Service() (one instance for the app) or @RequestScoped() (one per call)',
      },
      {
        code: 'ARM402',
        where: 'Mid',
        message: 'Mid (parameter 2 of LeakyServer) injects the request-scoped PerCall but is a singleton',
        fix: 'mark Mid @RequestScoped() so each call gets its own instance',
      },
    ]);
  });

  it('disposes dependents before their dependencies', async () => {
    const order: string[] = [];
    @RequestScoped()
    class Dep {
      destroy() {
        order.push('Dep');
      }
    }
    @McpServer({ name: 'order', version: '1' })
    class OrderServer {
      constructor(readonly dep: Dep) {}
      destroy() {
        order.push('OrderServer');
      }
      @Tool({ description: 'd' })
      go() {
        return 'ok';
      }
    }
    const c = await connectInMemory(createMcpApp(OrderServer));
    await c.client.callTool({ name: 'go', arguments: {} });
    expect(order).toEqual(['OrderServer', 'Dep']);
    await c.close();
  });

  it('ends a scope without hooks synchronously, and waits for an asynchronous hook, failures reported once', async () => {
    const steps: string[] = [];
    class Plain {}
    class Hooked {
      async [Symbol.asyncDispose]() {
        await new Promise((r) => setTimeout(r, 5));
        steps.push('disposed');
        throw new Error('hook failed');
      }
    }
    const adapter = new TypediContainerAdapter();
    adapter.prepare({ servers: [Plain, Hooked], requestScoped: [] });
    // Most requests hold instances without hooks: there is nothing to wait for, so no promise.
    const plain = adapter.createScope({} as Context);
    plain.get(Plain);
    expect(plain.dispose()).toBeUndefined();
    const hooked = adapter.createScope({} as Context);
    hooked.get(Hooked);
    const ending = hooked.dispose();
    expect(ending).toBeInstanceOf(Promise);
    await expect(ending).rejects.toThrow('hook failed');
    expect(steps).toEqual(['disposed']);
  });

  it('accepts an asynchronous scope (NestJS resolves request-scoped providers asynchronously)', async () => {
    const adapter: ContainerAdapter = {
      createScope: (ctx) => ({
        get: async <T>(token: Constructor<T>) => {
          await new Promise((r) => setTimeout(r, 1));
          return new (token as unknown as new (c: unknown, a: unknown, x: Context) => T)({ id: 7 }, { record: () => undefined, ctx }, ctx);
        },
        dispose: () => undefined,
      }),
    };
    const c = await connectInMemory(createMcpApp(DiServer, { container: adapter }));
    expect((await c.client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ catalogue: 7 });
    await c.close();
  });

  it('accepts another container through the adapter seam', async () => {
    const events: string[] = [];
    const adapter: ContainerAdapter = {
      createScope(ctx) {
        events.push('open');
        return {
          get: <T>(token: Constructor<T>) => {
            events.push(`get ${token.name}`);
            return new (token as unknown as new (c: unknown, a: unknown, x: Context) => T)(
              { id: 99 },
              { record: () => undefined, ctx },
              ctx,
            );
          },
          dispose: () => {
            events.push('dispose');
          },
        };
      },
    };
    const custom = createMcpApp(DiServer, { container: adapter });
    const c = await connectInMemory(custom);
    const result = await c.client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toMatchObject({ catalogue: 99 });
    expect(events).toEqual(['open', 'get DiServer', 'dispose']);
    await c.close();
  });
});

describe('many calls', () => {
  it('never read Reflect per call and leave no live scope', async () => {
    const app = createMcpApp(DiServer);
    const connection = await connectInMemory(app);
    await connection.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const reflectReads = { count: 0 };
    const original = { get: Reflect.getMetadata, own: Reflect.getOwnMetadata };
    Reflect.getMetadata = ((...args: Parameters<typeof Reflect.getMetadata>) => {
      reflectReads.count++;
      return original.get(...args);
    }) as typeof Reflect.getMetadata;
    Reflect.getOwnMetadata = ((...args: Parameters<typeof Reflect.getOwnMetadata>) => {
      reflectReads.count++;
      return original.own(...args);
    }) as typeof Reflect.getOwnMetadata;
    try {
      const calls = Array.from({ length: 500 }, (_, i) =>
        connection.client.callTool({ name: i % 2 ? 'add' : 'whoami', arguments: i % 2 ? { a: i, b: 1 } : {} }),
      );
      const results = await Promise.all(calls);
      expect(results.filter((r) => r.isError)).toEqual([]);
    } finally {
      Reflect.getMetadata = original.get;
      Reflect.getOwnMetadata = original.own;
    }
    expect(reflectReads.count).toBe(0);
    expect(app.stats.liveScopes).toBe(0);
    await connection.close();
  });

  it('100,000 calls of the built package leave zero live scopes and keep none of their per-call objects', () => {
    const fixture = fileURLToPath(new URL('./fixtures/heap-check.mjs', import.meta.url));
    const out = execFileSync(process.execPath, ['--expose-gc', fixture], { encoding: 'utf8', timeout: 120_000 });
    const { watched, kept, liveScopes, calls } = JSON.parse(out) as { watched: number; kept: number; liveScopes: number; calls: number };
    expect(calls).toBe(100_000);
    expect(liveScopes).toBe(0);
    // Server instance, @RequestScoped service and Context of 100 calls: all collected after a GC.
    // (Was: heap growth ratios between marks; the heap over a long run is reliability figure 6.)
    expect(watched).toBe(300);
    expect(kept).toBe(0);
  }, 130_000);
});

describe('TypediContainerAdapter.override', () => {
  it('replaces a service for one app, singletons depending on it included, without touching other apps', async () => {
    @Service()
    class Clock {
      now() {
        return 'real';
      }
    }
    @Service()
    class Greeter {
      constructor(readonly clock: Clock) {}
      greet() {
        return `hello at ${this.clock.now()}`;
      }
    }
    @McpServer({ name: 'clock', version: '1' })
    class ClockServer {
      constructor(
        readonly clock: Clock,
        readonly greeter: Greeter,
      ) {}
      @Tool({ description: 'd' })
      time() {
        return `${this.clock.now()} / ${this.greeter.greet()}`;
      }
    }
    const isolated = new TypediContainerAdapter(new ContainerInstance('override-test')).override(Clock, { now: () => 'fake' });
    const faked = await connectInMemory(createMcpApp(ClockServer, { container: isolated }));
    const real = await connectInMemory(createMcpApp(ClockServer));
    expect((await faked.client.callTool({ name: 'time', arguments: {} })).content).toEqual([
      { type: 'text', text: 'fake / hello at fake' },
    ]);
    expect((await real.client.callTool({ name: 'time', arguments: {} })).content).toEqual([{ type: 'text', text: 'real / hello at real' }]);
    await faked.close();
    await real.close();
  });
});

describe('disposal survives a failing hook', () => {
  it('runs every dispose hook even when one throws, and reports the failure', async () => {
    const order: string[] = [];
    const reported: unknown[] = [];
    @RequestScoped()
    class Inner {
      destroy() {
        order.push('Inner');
      }
    }
    @McpServer({ name: 'failing-dispose', version: '1' })
    class FailingDispose {
      constructor(readonly inner: Inner) {}
      destroy() {
        order.push('FailingDispose');
        throw new Error('dispose failed');
      }
      @Tool({ description: 'd' })
      go() {
        return 'ok';
      }
    }
    const app = createMcpApp(FailingDispose, { onError: (error) => reported.push((error as Error).message) });
    const c = await connectInMemory(app);
    expect((await c.client.callTool({ name: 'go', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(order).toEqual(['FailingDispose', 'Inner']);
    expect(reported).toEqual(['dispose failed']);
    expect(app.stats.liveScopes).toBe(0);
    await c.close();
  });
});
