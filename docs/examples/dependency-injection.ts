import {
  ArmatureBuildError,
  type Constructor,
  type ContainerAdapter,
  Context,
  createMcpApp,
  McpServer,
  Principal,
  type RequestScope,
  RequestScoped,
  Tool,
  TypediContainerAdapter,
} from '@armature/core';
import { IsPositive, IsString } from 'class-validator';
import { Container, ContainerInstance, Service } from 'typedi';
import { connectInMemory, expectEqual } from './support/check.js';

// #region services
@Service() // a typedi singleton: built once, shared by every call
export class ConnectionPool {
  readonly open = new Set<string>();

  acquire(owner: string): string {
    const connection = `conn-for-${owner}`;
    this.open.add(connection);
    return connection;
  }

  release(connection: string): void {
    this.open.delete(connection);
  }
}

@RequestScoped() // one instance per call, built in the call's scope, disposed when the call ends
export class UnitOfWork {
  readonly connection: string;

  constructor(
    private readonly pool: ConnectionPool,
    ctx: Context,
  ) {
    this.connection = pool.acquire(`request-${String(ctx.requestId)}`);
  }

  async [Symbol.asyncDispose]() {
    this.pool.release(this.connection);
  }
}

export class TransferInput {
  @IsString()
  from!: string;

  @IsString()
  to!: string;

  @IsPositive()
  amount!: number;
}

@McpServer({ name: 'bank', version: '1.0.0' })
export class BankServer {
  // The server class itself is resolved per call, so it may depend on request-scoped services.
  constructor(private readonly work: UnitOfWork) {}

  @Tool({ description: 'Move money between two accounts', annotations: { destructiveHint: true } })
  transfer(input: TransferInput) {
    return `Moved ${input.amount} from ${input.from} to ${input.to} on ${this.work.connection}`;
  }
}
// #endregion

// The interface as the guide shows it; the compiler checks it is the one @armature/core exports.
declare namespace Documented {
  // #region adapter-interface
  interface ContainerAdapter {
    prepare?(classes: { servers: readonly Constructor[]; requestScoped: readonly Constructor[] }): void;
    createScope(ctx: Context): RequestScope;
  }
  interface RequestScope {
    get<T>(token: Constructor<T>): T | Promise<T>;
    dispose(): void | Promise<void>;
  }
  // #endregion
}
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const documentedInterfacesMatch: [Same<Documented.ContainerAdapter, ContainerAdapter>, Same<Documented.RequestScope, RequestScope>] =
  [true, true];

// #region manual-adapter
/** A ContainerAdapter without any container: each call's objects wired by hand. */
export function manualWiring(pool: ConnectionPool): ContainerAdapter {
  return {
    createScope(ctx) {
      const work = new UnitOfWork(pool, ctx);
      return {
        get<T>(token: Constructor<T>): T {
          if (token === (BankServer as Constructor)) return new BankServer(work) as T;
          throw new Error(`manualWiring cannot build ${token.name}`);
        },
        dispose: () => work[Symbol.asyncDispose](),
      };
    },
  };
}
// #endregion

export const outputs: Record<string, string> = {
  'di-errors': `Armature cannot start the MCP server: 2 problems in the decorated classes.
  1. Session: Session (parameter 0 of ProfileServer) injects the request's Context but is a singleton [ARM402]
     Fix: mark Session @RequestScoped() so each call gets its own instance
  2. Mailer: Mailer (parameter 1 of ProfileServer) is not known to the container, so it cannot be injected [ARM401]
     Fix: decorate it with @Service() (one instance for the app) or @RequestScoped() (one per call)`,
};

type CallResult = Awaited<ReturnType<Awaited<ReturnType<typeof connectInMemory>>['client']['callTool']>>;
const textOf = (result: CallResult) => (result.content as Array<{ text?: string }>).map((block) => block.text).join('\n');

async function defaultContainer(): Promise<void> {
  const app = createMcpApp(BankServer);
  const { client, close } = await connectInMemory(app);
  const pool = Container.get(ConnectionPool);
  try {
    const first = await client.callTool({ name: 'transfer', arguments: { from: 'a', to: 'b', amount: 5 } });
    const second = await client.callTool({ name: 'transfer', arguments: { from: 'b', to: 'a', amount: 5 } });
    const [one, two] = [textOf(first), textOf(second)];
    expectEqual(
      /on conn-for-request-\d+$/.test(one) && /on conn-for-request-\d+$/.test(two) && one !== two,
      true,
      'one UnitOfWork per call',
    );
    expectEqual(pool.open.size, 0, 'every UnitOfWork was disposed when its call ended');
    expectEqual(Container.get(ConnectionPool), pool, 'the pool is one typedi singleton');
    expectEqual(app.stats.liveScopes, 0, 'no scope left open');
  } finally {
    await close();
  }
}

async function disposal(): Promise<void> {
  const events: string[] = [];
  @RequestScoped()
  class Tracer {
    constructor() {
      events.push('Tracer created');
    }
    [Symbol.dispose]() {
      events.push('Tracer disposed');
      throw new Error('dispose failed');
    }
  }
  @McpServer({ name: 'traced', version: '1.0.0' })
  class TracedServer {
    constructor(readonly tracer: Tracer) {
      events.push('TracedServer created');
    }
    @Tool({ description: 'Fails on purpose' })
    fail() {
      throw new Error('boom');
    }
    destroy() {
      events.push('TracedServer destroyed');
    }
  }
  const reported: string[] = [];
  const app = createMcpApp(TracedServer, { exposeErrors: true, onError: (error) => reported.push((error as Error).message) });
  const { client, close } = await connectInMemory(app);
  try {
    const result = await client.callTool({ name: 'fail', arguments: {} });
    expectEqual([result.isError, textOf(result)], [true, 'boom'], 'the tool error reaches the client, not the dispose error');
    expectEqual(events.slice(0, 2), ['Tracer created', 'TracedServer created'], 'created per call');
    expectEqual(events.slice(2), ['TracedServer destroyed', 'Tracer disposed'], 'dependents disposed first');
    expectEqual(reported.sort(), ['boom', 'dispose failed'], 'both errors reported to onError');
  } finally {
    await close();
  }

  // Every hook runs even when some throw; the first failure (in disposal order) goes to onError.
  events.length = 0;
  @RequestScoped()
  class AuditLog {
    destroy() {
      events.push('AuditLog destroyed');
    }
  }
  @RequestScoped()
  class Dependency {
    constructor(readonly audit: AuditLog) {}
    destroy() {
      events.push('Dependency destroyed');
      throw new Error('second dispose failure');
    }
  }
  @McpServer({ name: 'throwing', version: '1.0.0' })
  class ThrowingServer {
    constructor(readonly dependency: Dependency) {}
    @Tool({ description: 'Works' })
    work() {
      return 'ok';
    }
    destroy() {
      events.push('ThrowingServer destroyed');
      throw new Error('first dispose failure');
    }
  }
  const failures: string[] = [];
  const throwingApp = createMcpApp(ThrowingServer, { onError: (error) => failures.push((error as Error).message) });
  const throwing = await connectInMemory(throwingApp);
  try {
    const result = await throwing.client.callTool({ name: 'work', arguments: {} });
    expectEqual([result.isError === true, textOf(result)], [false, 'ok'], 'the tool result is untouched by failing hooks');
    expectEqual(
      events,
      ['ThrowingServer destroyed', 'Dependency destroyed', 'AuditLog destroyed'],
      'a throwing hook does not stop the rest of the disposal',
    );
    expectEqual(failures, ['first dispose failure'], 'only the first failure is reported');
    expectEqual(throwingApp.stats.liveScopes, 0, 'the scope is closed');
  } finally {
    await throwing.close();
  }
}

// #region di-errors
class Mailer {} // no @Service()

@Service()
class Session {
  constructor(readonly ctx: Context) {} // a singleton cannot have a per-call Context
}

@McpServer({ name: 'profile', version: '1.0.0' })
export class ProfileServer {
  constructor(
    readonly session: Session,
    readonly mailer: Mailer,
  ) {}

  @Tool({ description: 'Who am I' })
  whoami() {
    return 'me';
  }
}
// #endregion

function startupChecks(): void {
  try {
    createMcpApp(ProfileServer);
  } catch (error) {
    expectEqual(error instanceof ArmatureBuildError, true, 'an ArmatureBuildError');
    expectEqual((error as Error).message, outputs['di-errors'], 'dependency problems at start-up');
    return;
  }
  throw new Error('expected start-up to fail');
}

async function customAdapter(): Promise<void> {
  // #region use-adapter
  const pool = new ConnectionPool();
  const app = createMcpApp(BankServer, { container: manualWiring(pool) });
  // #endregion
  const { client, close } = await connectInMemory(app);
  try {
    const result = await client.callTool({ name: 'transfer', arguments: { from: 'a', to: 'b', amount: 1 } });
    expectEqual(/^Moved 1 from a to b on conn-for-request-\d+$/.test(textOf(result)), true, 'manual wiring serves the call');
    expectEqual(pool.open.size, 0, 'disposed by the adapter');
  } finally {
    await close();
  }
}

async function testingContainer(): Promise<void> {
  // #region test-container
  const released: string[] = [];
  const fakePool = {
    open: new Set<string>(),
    acquire: (owner: string) => `fake-for-${owner}`,
    release: (connection: string) => void released.push(connection),
  } satisfies ConnectionPool;

  // An isolated typedi container: the fake never leaks into Container.of() or other tests.
  const container = new TypediContainerAdapter(new ContainerInstance('bank-test')).override(ConnectionPool, fakePool);
  const app = createMcpApp(BankServer, { container });
  // #endregion
  const { client, close } = await connectInMemory(app);
  try {
    const result = await client.callTool({ name: 'transfer', arguments: { from: 'a', to: 'b', amount: 2 } });
    expectEqual(/^Moved 2 from a to b on fake-for-request-\d+$/.test(textOf(result)), true, 'the fake pool was injected');
    expectEqual(released.length, 1, 'and released by the UnitOfWork');
    expectEqual(Container.get(ConnectionPool) === (fakePool as unknown), false, 'the default container is untouched');
  } finally {
    await close();
  }
}

// #region unit-test
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** A Context for calling tool methods directly: records log lines, never cancelled, no progress. */
export function testContext(lines: string[] = []): Context {
  const log = Object.fromEntries(LEVELS.map((level) => [level, async (message: string) => void lines.push(`${level}: ${message}`)]));
  const members = { log, signal: new AbortController().signal, meta: {}, requestId: 'test-1', progress: async () => {} };
  return Object.assign(Object.create(Context.prototype), members) as Context;
}

export function transferDirectly(): string {
  const ctx = testContext();
  const server = new BankServer(new UnitOfWork(new ConnectionPool(), ctx));
  const input = Object.assign(new TransferInput(), { from: 'a', to: 'b', amount: 3 });
  return server.transfer(input); // 'Moved 3 from a to b on conn-for-request-test-1'
}
// #endregion

/** Page claims: a singleton over a request-scoped service, and a constructor without metadata, stop start-up. */
function moreStartupChecks(): void {
  @RequestScoped()
  class PerCall {
    constructor(readonly ctx: Context) {}
  }
  @Service()
  class Cache {
    constructor(readonly perCall: PerCall) {}
  }
  @Service()
  class Caller {
    constructor(readonly principal: Principal) {}
  }
  @McpServer({ name: 'cached', version: '1.0.0' })
  class CachedServer {
    constructor(
      readonly cache: Cache,
      readonly caller: Caller,
    ) {}
    @Tool({ description: 'Hello' })
    hello() {
      return 'hello';
    }
  }
  // What tsx leaves: the decorators run, but the constructor's parameter types are not recorded.
  class NoMetadata {
    constructor(readonly pool: ConnectionPool) {}
    size() {
      return this.pool.open.size;
    }
  }
  Tool({ description: 'Pool size' })(
    NoMetadata.prototype,
    'size',
    Object.getOwnPropertyDescriptor(NoMetadata.prototype, 'size') as PropertyDescriptor,
  );
  McpServer({ name: 'no-metadata', version: '1.0.0' })(NoMetadata);
  try {
    createMcpApp([CachedServer, NoMetadata]);
  } catch (error) {
    expectEqual(
      (error as ArmatureBuildError).problems.map((p) => p.message),
      [
        'Cache (parameter 0 of CachedServer) injects the request-scoped PerCall but is a singleton',
        "Caller (parameter 1 of CachedServer) injects the request's Principal but is a singleton",
        'the constructor takes 1 parameter(s) but no decorator metadata was emitted for it (tsx and esbuild emit none), so nothing could be injected',
      ],
      'more start-up checks',
    );
    return;
  }
  throw new Error('expected start-up to fail');
}

/** RequestScope.get may return a promise (NestJS resolves request-scoped providers asynchronously). */
async function asyncScope(): Promise<void> {
  const pool = new ConnectionPool();
  const adapter: ContainerAdapter = {
    createScope(ctx) {
      const work = new UnitOfWork(pool, ctx);
      return {
        get: async <T>(token: Constructor<T>): Promise<T> => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (token === (BankServer as Constructor)) return new BankServer(work) as T;
          throw new Error(`cannot build ${token.name}`);
        },
        dispose: () => work[Symbol.asyncDispose](),
      };
    },
  };
  const { client, close } = await connectInMemory(createMcpApp(BankServer, { container: adapter }));
  try {
    const result = await client.callTool({ name: 'transfer', arguments: { from: 'a', to: 'b', amount: 4 } });
    expectEqual(/^Moved 4 from a to b on conn-for-request-\d+$/.test(textOf(result)), true, 'an asynchronous get serves the call');
    expectEqual(pool.open.size, 0, 'disposed');
  } finally {
    await close();
  }
}

export async function main(): Promise<void> {
  startupChecks();
  moreStartupChecks();
  await defaultContainer();
  await disposal();
  await customAdapter();
  await asyncScope();
  await testingContainer();
  expectEqual(transferDirectly(), 'Moved 3 from a to b on conn-for-request-test-1', 'a tool is a plain method');
}
