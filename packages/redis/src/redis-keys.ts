/**
 * The names of Armature's keys and channels on Redis, hashed for Redis Cluster. The keys one Lua
 * script or one MULTI touches together share a hash tag (the text between the first `{` and `}`),
 * so Redis puts them in one slot: the session records with the caps' counts (OPEN, TOUCH), the
 * SSE event streams with their event ids (STORE), the tasks with their owners' indexes, counts and
 * retry queue (CREATE, UPDATE, ADMIT, KEEP). A key only ever used alone (instance and listen
 * leases, the catalogue, the rate-limit counts) keeps its plain name and spreads over the slots.
 * Channels are named without a tag: cluster pub/sub reaches every node whatever the channel's slot.
 * On one Redis, the tags are plain characters of the name.
 */
export interface RedisKeys {
  /** Prefix of session records, their subscriptions, the subscriber indexes and the caps' counts. */
  readonly sessions: string;
  /** Prefix of the SSE event streams, their byte totals, event ids and claims. */
  readonly events: string;
  /** Prefix of the tasks, their indexes, the task limits' counts and the retry queue. */
  readonly tasks: string;
  /** Prefix of the keys used alone. */
  readonly plain: string;
  /** Prefix of the channels (`<prefix>bus:<topic>`). */
  readonly channels: string;
}

export function redisKeys(prefix: string): RedisKeys {
  return {
    sessions: `{${prefix}sessions}:`,
    events: `{${prefix}events}:`,
    tasks: `{${prefix}tasks}:`,
    plain: prefix,
    channels: prefix,
  };
}
