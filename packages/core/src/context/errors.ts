import { ProtocolError } from '@modelcontextprotocol/server';

/**
 * A protocol-level failure: answered as a JSON-RPC error with this code, not as a tool result.
 * Use it when the request itself is wrong (the caller lacks access, say), not when the tool's work
 * failed.
 *
 * @example
 * ```ts
 * throw new McpError(-32001, 'Not authorised for this workspace');
 * ```
 */
export class McpError extends ProtocolError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.name = 'McpError';
  }
}

/**
 * An intentional tool failure: answered as a result with `isError: true` whose text is the
 * message. Any other thrown error is answered the same way; `ToolError` says it was meant, and
 * keeps its message even where unexpected errors are masked.
 *
 * @example
 * ```ts
 * throw new ToolError(`No user with id ${id}. Call list_users to see valid ids.`);
 * ```
 */
export class ToolError extends Error {
  constructor(
    message: string,
    /** Optional structured details, sent as `structuredContent` of the error result. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
