import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { callMessages } from '../../messages/call-messages.js';
import type { ValidationIssue } from '../../messages/validation-issue.js';
import { describe, validateOutput } from '../../validation/dto-validator.js';
import { text } from './content.js';
import { isCallToolResultShape, toCallToolResult, toPlainObject } from './to-call-tool-result.js';

/** An `isError` result with `message` as its text (members in the order the SDK writes them). */
export function errorResult(message: string, structured?: Record<string, unknown>): CallToolResult {
  if (structured) return { content: [text(message)], structuredContent: structured, isError: true };
  return { content: [text(message)], isError: true };
}

function invalidResult(tool: ToolDefinition, issues: readonly ValidationIssue[]): CallToolResult {
  return errorResult(callMessages.invalidResult(tool.name, issues));
}

/**
 * Converts the method's return value, checking it against the tool's output schema if it has one.
 * A promise only for an output DTO (class-validator may be asynchronous): the other results are
 * answered without a turn of the microtask queue.
 */
export function toToolResult(tool: ToolDefinition, value: unknown): CallToolResult | Promise<CallToolResult> {
  const output = tool.output;
  if (output.kind === 'none') return toCallToolResult(value);
  if (output.kind === 'relayed') return value as CallToolResult;
  const asResult = isCallToolResultShape(value) ? value : undefined;
  if (asResult?.isError) return asResult;
  const structured = asResult ? asResult.structuredContent : value;
  if (structured === undefined) {
    return invalidResult(tool, [{ path: '', message: `expected an object matching the output schema, got ${describe(value)}` }]);
  }
  if (output.kind === 'dto') {
    return validateOutput(output.dto, structured).then((outcome) =>
      outcome.ok ? withStructured(asResult, toPlainObject(outcome.value)) : invalidResult(tool, outcome.issues),
    );
  }
  const outcome = output.validate(structured);
  return outcome.ok ? withStructured(asResult, outcome.value as Record<string, unknown>) : invalidResult(tool, outcome.issues);
}

/** The result carrying `plain` as its structured content (and, when the method gave none, as its text). */
function withStructured(asResult: CallToolResult | undefined, plain: Record<string, unknown>): CallToolResult {
  if (asResult) return { ...asResult, structuredContent: plain };
  return { content: [text(JSON.stringify(plain))], structuredContent: plain };
}
