import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { McpRequestInfo, Middleware } from '../context/execution-context.js';
import { callMessages, messageOf } from '../messages/call-messages.js';
import type { CallRequest, ToolErrorReporter } from './call-request.js';
import { newErrorId } from './execute-call.js';

/**
 * Runs `handler` inside the app's middleware, the first one outermost. An exception thrown by
 * middleware itself is answered as JSON-RPC -32603 (seed rule); what the handler throws passes
 * through unchanged.
 */
export async function withMiddleware(
  middleware: readonly Middleware[],
  request: CallRequest,
  params: Record<string, unknown> | undefined,
  settings: { readonly exposeErrors: boolean; readonly reportError: ToolErrorReporter },
  handler: () => Promise<unknown>,
): Promise<unknown> {
  const info: McpRequestInfo = { method: request.method, params, context: request.ctx };
  const fromHandler = new WeakSet<object>();
  let next = async () => {
    try {
      return await handler();
    } catch (error) {
      if (typeof error === 'object' && error !== null) fromHandler.add(error);
      throw error;
    }
  };
  for (let i = middleware.length - 1; i >= 0; i--) {
    const run = middleware[i] as Middleware;
    const inner = next;
    next = () => run(info, inner);
  }
  try {
    return await next();
  } catch (error) {
    if (typeof error === 'object' && error !== null && fromHandler.has(error)) throw error;
    const errorId = newErrorId();
    const requestId = request.ctx.requestId;
    settings.reportError(error, { tool: `middleware (${request.method})`, requestId, errorId });
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      settings.exposeErrors ? messageOf(error) : callMessages.masked(`${request.method} middleware`, requestId, errorId),
    );
  }
}
