import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ExtensionDefinition, ExtensionMethodDefinition } from '../../builder/definitions.js';
import type { MaybePromise } from '../../context/maybe-promise.js';
import { callMessages } from '../../messages/call-messages.js';
import { isPlainObject } from '../../validation/plain-object.js';
import type { CallRequest } from '../call-request.js';
import { type CallKind, type ExecutorSettings, executeCall } from '../execute-call.js';
import { negotiates } from './negotiation.js';

type Params = Record<string, unknown> | undefined;
type Result = Record<string, unknown>;

function internalError(message: string): never {
  throw new ProtocolError(ProtocolErrorCode.InternalError, message);
}

/**
 * Extension methods answer every failure as a JSON-RPC error, as the built-in methods do: invalid
 * params -32602 naming each field, a refused caller as if the method did not exist (-32601),
 * anything unexpected -32603 with the masked message.
 */
export const methodKind: CallKind<Result, ExtensionMethodDefinition> = {
  label: (plan) => `method "${plan.name}"`,
  reportAs: (plan) => plan.where,
  denied: async (plan) => {
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${plan.name}`);
  },
  invalidArguments: (plan, issues) => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.invalidArguments(`method "${plan.name}"`, issues));
  },
  fail: internalError,
  convert: (method, value) => {
    if (value === undefined) return {};
    if (isPlainObject(value)) return value as Result;
    throw new Error(
      callMessages.methodResultNotObject(method.name, value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value),
    );
  },
};

/** The -32021 error of a method that needs the client to declare its extension. */
export function extensionNotDeclared(extension: ExtensionDefinition, method: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [extension.id]: {} } } },
    callMessages.extensionNotDeclared(method, extension.id),
  );
}

/**
 * Runs one extension method through the one executor (guards, rate limits, params, interceptors,
 * timeout unless `longLived`, error masking, its span), after checking it is served on the
 * request's revision and the client negotiated the extension when the method asks for it. `_meta` is the request's, not a param: the handler reads it from its context.
 */
export function callExtensionMethod(
  settings: ExecutorSettings,
  extension: ExtensionDefinition,
  method: ExtensionMethodDefinition,
  params: Params,
  call: CallRequest,
): MaybePromise<Result> {
  if (method.revisions && !method.revisions.includes(call.ctx.revision))
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method.name}`);
  if (method.requiresClientExtension && !negotiates(call, extension)) throw extensionNotDeclared(extension, method.name);
  const { _meta: _ignored, ...args } = params ?? {};
  if (!method.longLived) return executeCall(settings, method.plan, methodKind, method, call, args);
  endsWhenGone(call);
  return executeCall(untimed(settings), method.plan, methodKind, method, call, args);
}

/** The settings without the timeout, for a long-lived method (it ends on cancel, disconnect or close). */
function untimed(settings: ExecutorSettings): ExecutorSettings {
  return Object.create(settings, { timeoutMs: { value: 0 } }) as ExecutorSettings;
}

/**
 * A long-lived call over HTTP ends when its client goes away (its answer stream closed: the client
 * aborted it, dropped the connection, or the app closed the connection), which the SDK does not
 * turn into a cancel: on 2025-11-25 a dropped stream is not a cancel, yet nobody could resume one
 * that never answers. Its web Request's signal says so (stdio and in-memory have none: a cancel
 * notification or the transport's close ends those).
 */
function endsWhenGone(call: CallRequest): void {
  const gone = call.ctx.source.http?.req?.signal;
  if (!gone) return;
  if (gone.aborted) call.ctx.abort(gone.reason);
  else gone.addEventListener('abort', () => call.ctx.abort(gone.reason), { once: true });
}
