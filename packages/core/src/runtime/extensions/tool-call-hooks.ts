import type { Server } from '@modelcontextprotocol/server';
import type { ExtensionDefinition, ToolDefinition } from '../../builder/definitions.js';
import { EXTENSION_VIEW, type ExtensionToolCall, type ExtensionViews } from '../../context/extension.js';
import { isAllowed } from '../access.js';
import type { CallRequest } from '../call-request.js';
import type { CallKind } from '../execute-call.js';
import { type RateLimiting, rateLimitedError } from '../rate-limiting.js';

type Params = Record<string, unknown> | undefined;

/** What the hooks ask of the app: its extensions, how a refused tool call is answered, its rate limits. */
export interface ToolCallHost {
  readonly definition: { readonly extensions: readonly ExtensionDefinition[] };
  readonly kinds: { readonly tools: Pick<CallKind<unknown, ToolDefinition>, 'denied'> };
  readonly rateLimiting?: RateLimiting;
}

/** How `tools/call` asks the extensions' `onToolCall` hooks: their answer, or undefined to run the tool. */
export type ToolCallHooks = (tool: ToolDefinition, params: Params, call: CallRequest) => Promise<unknown>;

const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * A `tools/call` as an extension's hook sees it (`ExtensionToolCall`), on one connection's SDK
 * `server`. Armature's own extensions that answer in the tool's place (tasks) read the call's
 * internals through `internalsOf`.
 */
class ToolCallView implements ExtensionToolCall {
  constructor(
    private readonly app: ToolCallHost,
    readonly definition: ToolDefinition,
    readonly params: Readonly<Record<string, unknown>>,
    readonly request: CallRequest,
    readonly server: Server,
  ) {}

  get name(): string {
    return this.definition.name;
  }

  get descriptor(): Readonly<Record<string, unknown>> {
    return (this.definition.extended?.plain ?? this.definition.descriptor) as Readonly<Record<string, unknown>>;
  }

  async allowed(): Promise<boolean> {
    const { plan } = this.definition;
    return !(plan.guarded || this.request.filtered) || isAllowed(plan, 'call', this.request);
  }

  refuse(): Promise<never> {
    return this.app.kinds.tools.denied(this.definition.plan, this.definition, this.request);
  }

  /** A refused call is a JSON-RPC error here, whatever the app's shape for tool calls: no tool ran to answer with a tool error. */
  async count(): Promise<void> {
    const { plan } = this.definition;
    const { rateLimiting } = this.app;
    if (plan.rateLimits.length === 0 || !rateLimiting) return;
    const refusal = await rateLimiting.check(plan, `tool "${plan.name}"`, this.request);
    if (refusal) throw rateLimitedError(refusal, rateLimiting.errorShape);
  }
}

/** The call behind an `ExtensionToolCall` the runtime made: for Armature's own hooks (tasks), which run tools themselves. */
export function internalsOf(call: ExtensionToolCall): { tool: ToolDefinition; request: CallRequest; server: Server } {
  if (!(call instanceof ToolCallView)) throw new TypeError('not a tools/call of this runtime');
  return { tool: call.definition, request: call.request, server: call.server };
}

/**
 * The `onToolCall` hooks of the app's advertised extensions, asked in order on `server`'s
 * `tools/call`s; undefined when none has one (a call then runs the tool at once).
 */
export function toolCallHooks(app: ToolCallHost, server: Server): ToolCallHooks | undefined {
  const hooked = app.definition.extensions.filter((extension) => extension.onToolCall && extension.settings !== undefined);
  if (hooked.length === 0) return undefined;
  return async (tool, params, call) => {
    const view = new ToolCallView(app, tool, params ?? NO_PARAMS, call, server);
    for (const extension of hooked) {
      const answer = await extension.onToolCall?.(view, (call.ctx as unknown as ExtensionViews)[EXTENSION_VIEW](extension.id));
      if (answer !== undefined) return answer;
    }
    return undefined;
  };
}
