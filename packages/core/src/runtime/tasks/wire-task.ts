import type { TaskRecord } from '../../state/task-store.js';

/** A task as the wire shows it (2025-11-25 `Task`). */
export interface WireTask {
  taskId: string;
  status: TaskRecord['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
}

/** The 2025-11-25 `Task` of a record. */
export function wireOf(record: TaskRecord): WireTask {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}
