import {
  type CallToolResult,
  type CompleteResult,
  type GetPromptResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import type { CallPlan, PromptDefinition, ToolDefinition } from '../builder/definitions.js';
import { callMessages, messageOf } from '../messages/call-messages.js';
import type { CallRequest } from './call-request.js';
import type { CallKind } from './execute-call.js';
import { toGetPromptResult } from './results/to-get-prompt-result.js';
import { toReadResourceResult } from './results/to-read-resource-result.js';
import { errorResult, toToolResult } from './results/to-tool-result.js';

const MAX_COMPLETIONS = 100; // spec: completion values are capped at 100 per response

function internalError(message: string): never {
  throw new ProtocolError(ProtocolErrorCode.InternalError, message);
}

/**
 * Tools answer every failure as a result with `isError: true` the model can read; only `McpError`
 * (and unknown or hidden tools, spec 2025-11-25) are JSON-RPC errors.
 */
export function toolKind(visibleNames: (request: CallRequest) => Promise<readonly string[]>): CallKind<CallToolResult, ToolDefinition> {
  return {
    label: (plan) => `tool "${plan.name}"`,
    reportAs: (plan) => plan.name,
    denied: async (plan, _tool, request) => unknownTool(plan.name, await visibleNames(request)),
    invalidArguments: (plan, issues) => errorResult(callMessages.invalidArguments(`tool "${plan.name}"`, issues)),
    fail: (message, details) => errorResult(message, details),
    convert: toToolResult,
    unconvertible: (plan, error) => callMessages.notJson(plan.name, messageOf(error)),
    inputRequired: async (channel) => (await channel.toInputRequiredResult()) as unknown as CallToolResult,
  };
}

/** An unknown (or hidden) tool: a protocol error (-32602), not a tool result. */
export function unknownTool(name: string, visible: readonly string[]): never {
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.unknownTool(name, visible));
}

/** An unknown (or hidden) prompt: -32602 naming only the prompts this caller may see. */
export function unknownPrompt(name: string, visible: readonly string[]): never {
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.unknownPrompt(name, visible));
}

/** What a resource read is about: the URI read, the MIME type advertised for it, and the `_meta` extensions put on its contents. */
export interface ResourceSubject {
  readonly uri: string;
  readonly mimeType: string | undefined;
  readonly contentMeta?: Readonly<Record<string, unknown>>;
}

/** Resources and templates answer failures as JSON-RPC errors; hidden ones as not found. */
export const resourceKind: CallKind<ReadResourceResult, ResourceSubject> = {
  label: (plan) => (plan.kind === 'resourceTemplate' ? `resource template "${plan.name}"` : `resource "${plan.name}"`),
  reportAs: (plan) => plan.where,
  denied: async (_plan, subject) => {
    throw new ResourceNotFoundError(subject.uri);
  },
  invalidArguments: (plan, issues) => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.invalidArguments(resourceKind.label(plan), issues));
  },
  fail: internalError,
  convert: (subject, value) => toReadResourceResult(subject.uri, subject.mimeType, value, subject.contentMeta),
  inputRequired: async (channel) => (await channel.toInputRequiredResult()) as unknown as ReadResourceResult,
};

/** Prompts answer failures as JSON-RPC errors; hidden ones like unknown ones. */
export function promptKind(
  visibleNames: (request: CallRequest) => Promise<readonly string[]>,
): CallKind<GetPromptResult, PromptDefinition> {
  return {
    label: (plan) => `prompt "${plan.name}"`,
    reportAs: (plan) => plan.where,
    denied: async (plan, _prompt, request) => unknownPrompt(plan.name, await visibleNames(request)),
    invalidArguments: (plan, issues) => {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.invalidArguments(`prompt "${plan.name}"`, issues));
    },
    fail: internalError,
    convert: (prompt, value) => toGetPromptResult(value, prompt.descriptor.description),
    inputRequired: async (channel) => (await channel.toInputRequiredResult()) as unknown as GetPromptResult,
  };
}

/**
 * Completion sources: their prompt's or template's access is asked before (their plans carry no
 * guards of their own) and their input is Armature's; values capped at 100.
 */
export const completionKind: CallKind<CompleteResult, string> = {
  label: (plan: CallPlan) => `completion of "${plan.name}"`,
  reportAs: (plan) => plan.where,
  denied: async (plan) => internalError(`${completionKind.label(plan)} is not available to this caller`),
  invalidArguments: (plan, issues) => internalError(callMessages.invalidArguments(completionKind.label(plan), issues)),
  fail: internalError,
  convert(argument, values) {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) internalError(callMessages.completionNotStrings(argument));
    const capped = (values as string[]).slice(0, MAX_COMPLETIONS);
    return { completion: { values: capped, total: values.length, hasMore: values.length > capped.length } };
  },
};
