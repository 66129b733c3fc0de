import type { Context } from '../../context/context.js';
import type { ExtensionContext, ExtensionMeta, ProtocolRevision } from '../../context/extension.js';
import { isPlainObject } from '../../validation/plain-object.js';

/** Sends one notification for the request (through its stream's backpressure). */
export type RequestNotify = (method: string, params?: Record<string, unknown>) => Promise<void>;

/** What the view reads of the request beside the public Context (the runtime's Context has it). */
export interface RequestFacts {
  readonly revision: ProtocolRevision;
  readonly connectionId: string;
  readonly source: { readonly inputResponses: Record<string, unknown> | undefined };
}

/**
 * An extension's view of one request (`ExtensionContext`): made per call from the request's
 * Context, which stays the one source of its principal, signal, log and client capabilities.
 */
export class ExtensionView implements ExtensionContext, ExtensionMeta {
  /** The `_meta` keys the extension set for the result, once it set one. */
  written?: Record<string, unknown>;

  constructor(
    readonly context: Context,
    readonly extensionId: string,
    private readonly send: RequestNotify,
    private readonly facts: RequestFacts,
  ) {}

  get revision(): ProtocolRevision {
    return this.facts.revision;
  }

  get connectionId(): string {
    return this.facts.connectionId;
  }

  get inputResponses(): Readonly<Record<string, unknown>> | undefined {
    return this.facts.source.inputResponses;
  }

  client(id: string = this.extensionId): Readonly<Record<string, unknown>> | undefined {
    const declared = this.context.clientCapabilities?.extensions?.[id];
    return isPlainObject(declared) ? (declared as Record<string, unknown>) : undefined;
  }

  get meta(): ExtensionMeta {
    return this;
  }

  get<T = unknown>(key: string): T | undefined {
    return this.context.meta[key] as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.written ??= {};
    this.written[key] = value;
  }

  get principal() {
    return this.context.principal;
  }

  get signal() {
    return this.context.signal;
  }

  get log() {
    return this.context.log;
  }

  get requestId() {
    return this.context.requestId;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.send(method, params);
  }
}
