import {
  type Constructor,
  type ContainerAdapter,
  Context,
  createMcpApp,
  McpServer,
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
    get<T>(token: Constructor<T>): T;
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
  'singleton-context': `Armature could not prepare dependency injection:
  - Session (parameter 0 of ProfileServer) injects the request's Context or Principal but is a singleton. Fix: mark it @RequestScoped() so each call gets its own instance.`,
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
      throw new Error('dispose failed');
    }
  }
  const reported: string[] = [];
  const app = createMcpApp(TracedServer, { onError: (error) => reported.push((error as Error).message) });
  const { client, close } = await connectInMemory(app);
  try {
    const result = await client.callTool({ name: 'fail', arguments: {} });
    expectEqual([result.isError, textOf(result)], [true, 'boom'], 'the tool error reaches the client, not the dispose error');
    expectEqual(events.slice(0, 2), ['Tracer created', 'TracedServer created'], 'created per call');
    expectEqual(events.slice(2).sort(), ['TracedServer destroyed', 'Tracer disposed'], 'both disposed after the call');
    expectEqual(reported.sort(), ['boom', 'dispose failed'], 'both errors reported to onError');
  } finally {
    await close();
  }
}

async function singletonWithContext(): Promise<void> {
  @Service()
  class Session {
    constructor(readonly ctx: Context) {}
  }
  @McpServer({ name: 'profile', version: '1.0.0' })
  class ProfileServer {
    constructor(readonly session: Session) {}
    @Tool({ description: 'Who am I' })
    whoami() {
      return 'me';
    }
  }
  try {
    createMcpApp(ProfileServer);
  } catch (error) {
    expectEqual((error as Error).message, outputs['singleton-context'], 'singleton injecting Context');
    expectEqual((error as Error).name, 'Error', 'a plain Error, not an ArmatureBuildError');
    return;
  }
  throw new Error('expected start-up to fail');
}

async function customAdapter(): Promise<void> {
  const pool = new ConnectionPool();
  // #region use-adapter
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

/** Page claims about what is not caught at start-up: a missing @Service(), and missing metadata. */
async function callTimeFailures(): Promise<void> {
  class Unregistered {
    hello() {
      return 'hello';
    }
  }
  @McpServer({ name: 'greeter', version: '1.0.0' })
  class NeedsUnregistered {
    constructor(readonly dep: Unregistered) {}
    @Tool({ description: 'Say hello' })
    hello() {
      return this.dep.hello();
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

  const app = createMcpApp([NeedsUnregistered, NoMetadata], { onError: () => undefined }); // starts
  const { client, close } = await connectInMemory(app);
  try {
    const missing = await client.callTool({ name: 'hello', arguments: {} });
    expectEqual(
      [missing.isError, textOf(missing).startsWith('Service with "MaybeConstructable<Unregistered>" identifier was not found')],
      [true, true],
      'missing @Service()',
    );
    const undef = await client.callTool({ name: 'size', arguments: {} });
    expectEqual(
      [undef.isError, textOf(undef)],
      [true, "Cannot read properties of undefined (reading 'open')"],
      'no metadata: undefined dependency',
    );
  } finally {
    await close();
  }
}

export async function main(): Promise<void> {
  await callTimeFailures();
  await defaultContainer();
  await disposal();
  await singletonWithContext();
  await customAdapter();
  await testingContainer();
  expectEqual(transferDirectly(), 'Moved 3 from a to b on conn-for-request-test-1', 'a tool is a plain method');
}
