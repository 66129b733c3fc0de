import type { Server as NodeHttpServer } from 'node:http';
import { messageOf } from '../messages/call-messages.js';
import type { ServerEvents } from '../observability/server-events.js';
import type { AppState } from '../state/app-state.js';

/** What the lifecycle stops when the app stops accepting: an HTTP endpoint. */
interface Accepting {
  stopAccepting(): void;
}

/**
 * An app's life after it is built: whether it is ready (its state reachable), what it started
 * (listeners, endpoints, connections, each with its closer), and how it stops: gracefully on
 * `shutdown` or a signal (stop accepting, let running calls finish, then close), or at once on
 * `close`, telling `stopping` and `stopped` once each.
 */
export class AppLifecycle {
  private readonly closers = new Set<() => Promise<void>>();
  private readonly listeners = new Set<NodeHttpServer>();
  private readonly endpoints = new Set<Accepting>();
  private draining?: Promise<void>;
  private stopState: 'running' | 'stopping' | 'stopped' = 'running';

  /**
   * @param shared settles once the app listens to its state (at once for the memory state).
   * @param busy whether a request is still running (shutdown waits for it to turn false).
   * @param closeShared closes the extensions, then what the app shares with other instances (relay, bus), before the state.
   */
  constructor(
    private readonly state: AppState,
    private readonly shared: Promise<void>,
    private readonly events: ServerEvents,
    private readonly busy: () => boolean,
    private readonly closeShared: () => Promise<unknown>,
  ) {}

  /** Whether a graceful shutdown has begun. */
  get shuttingDown(): boolean {
    return this.draining !== undefined;
  }

  /** Remembers how to close something the app started. */
  track(close: () => Promise<void>): void {
    this.closers.add(close);
  }

  /** An HTTP endpoint, told to stop accepting when the shutdown begins; the returned function forgets it. */
  addEndpoint(endpoint: Accepting): () => void {
    this.endpoints.add(endpoint);
    return () => this.endpoints.delete(endpoint);
  }

  /** A node:http server, whose listening socket closes when the shutdown begins; the returned function forgets it. */
  addListener(server: NodeHttpServer): () => void {
    this.listeners.add(server);
    return () => this.listeners.delete(server);
  }

  /** Resolves once the app is connected to its state; rejects, naming the store, when it cannot be reached. */
  async ready(): Promise<void> {
    try {
      await this.shared;
    } catch (error) {
      throw new Error(`McpApp: the ${this.state.name} state could not be reached: ${messageOf(error)}`);
    }
  }

  /** Why the app cannot serve now (shutting down, or its shared state unreachable within a second), or undefined. */
  async notReady(): Promise<string | undefined> {
    if (this.draining) return 'shutting down';
    const { state } = this;
    if (!state.ping) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer within 1 s')), 1_000);
    });
    try {
      await Promise.race([state.ping(), late]);
      return undefined;
    } catch {
      return `the ${state.name} state cannot be reached`;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops accepting, lets running calls finish for up to `deadlineMs`, then closes; `reason` is told in `stopping`. */
  drain(deadlineMs: number | undefined, reason: string): Promise<void> {
    this.draining ??= (async () => {
      this.announceStopping(reason);
      for (const listener of this.listeners) listener.close();
      for (const endpoint of this.endpoints) endpoint.stopAccepting();
      const deadline = Date.now() + (deadlineMs ?? 10_000);
      while (this.busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await this.close();
    })();
    return this.draining;
  }

  /** Drains on each of `signals`, then exits when `exit`. */
  onSignals(options: { deadlineMs?: number; signals?: NodeJS.Signals[]; exit?: boolean }): void {
    for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) {
      process.once(signal, () => {
        void this.drain(options.deadlineMs, signal).finally(() => {
          if (options.exit ?? true) process.exit(0);
        });
      });
    }
  }

  /** Closes everything the app started, then what it shares, then its state. */
  async close(): Promise<void> {
    this.announceStopping('close()');
    const closers = [...this.closers];
    this.closers.clear();
    await Promise.allSettled(closers.map((close) => close()));
    await Promise.allSettled([this.closeShared()]);
    await this.state.close();
    if (this.stopState !== 'stopped') {
      this.stopState = 'stopped';
      this.events.emit({ event: 'stopped' });
    }
  }

  private announceStopping(reason: string): void {
    if (this.stopState !== 'running') return;
    this.stopState = 'stopping';
    this.events.emit({ event: 'stopping', reason });
  }
}
