// The ids of the protocol's extensions Armature serves itself, for every layer that names one.

/** The 2026-07-28 tasks extension (SEP-2663), in client and server capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
