import { type AuthInfo, CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from '../../context/protocol-extensions.js';
import type { TaskRecord } from '../../state/task-store.js';
import { principalKey } from '../principal-key.js';
import { wireOf } from './wire-task.js';

// The 2026-07-28 tasks extension (SEP-2663; ext-tasks specification/draft/tasks.md): what it
// names, how a client opts in, and how it shows a task. The task rules stay in TaskService.

/** The capability a request must declare (the server's own is advertised by extensions/tasks). */
export const TASKS_EXTENSION_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } };

/**
 * Whether a request's envelope (its `_meta`) declares the extension in its per-request client
 * capabilities (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`).
 */
export function declaresTasksIn(envelope: Record<string, unknown> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof declared === 'object' && declared !== null && !Array.isArray(declared);
}

/**
 * Who may see a task of the extension: the authenticated principal; an anonymous caller has no
 * session or connection to be bound to, so its task is bound to its id alone (a random UUID:
 * whoever holds it may poll, answer and cancel it). Apart from the 2025-11-25 utility's owners,
 * so neither revision sees the other's tasks.
 */
export function extensionOwner(principal: AuthInfo | undefined): string {
  return `extension:${principalKey(principal) ?? 'anyone'}`;
}

/** The extension's `-32021` error, naming the extension the request must declare. */
export function tasksExtensionMissing(message: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({ requiredCapabilities: TASKS_EXTENSION_CAPABILITY }, message);
}

/**
 * A task as the extension shows it (`DetailedTask`): `ttlMs` and `pollIntervalMs`, and once it is
 * terminal what the `tools/call` would have answered inline: `result` when completed (a tool
 * error included), `error` when failed; while `input_required`, the questions waiting for an
 * answer (`inputRequests`).
 */
export function detailedTaskOf(record: TaskRecord): Record<string, unknown> {
  const { outcome } = record;
  // The fields both revisions show, under the extension's names for the two that differ.
  const { ttl, pollInterval, ...shared } = wireOf(record);
  return {
    ...shared,
    ttlMs: ttl,
    pollIntervalMs: pollInterval,
    ...(record.status === 'input_required' ? { inputRequests: record.inputRequests ?? {} } : {}),
    ...(record.status === 'completed' && outcome?.kind === 'result' ? { result: outcome.result } : {}),
    ...(record.status === 'failed' && outcome?.kind === 'error'
      ? { error: { code: outcome.code, message: outcome.message, ...(outcome.data === undefined ? {} : { data: outcome.data }) } }
      : {}),
  };
}
