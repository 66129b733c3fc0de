// Every text @armature/redis shows a developer at start-up, formatted here only.

/** Start-up problems of `redisState({...})`: code, what was found, and the fix. */
export const REDIS_BUILD_MESSAGES = {
  badServer: {
    code: 'ARM194',
    title: 'redisState() was given both url and cluster, an empty cluster, or a cluster node that is not host and port',
    message: (what: string) => what,
    fix: () =>
      "redisState({ url: 'redis://host:6379' }) for one Redis, or redisState({ cluster: [{ host: '10.0.0.1', port: 6379 }, 'rediss://user:pass@10.0.0.2:6379'] }) for a Redis Cluster (one or more of its nodes), not both",
  },
  badKeyPrefix: {
    code: 'ARM195',
    title: 'the keyPrefix of redisState() holds { or }, which would break the hash tags that keep keys in one Redis Cluster slot',
    message: (prefix: string) => `keyPrefix is ${JSON.stringify(prefix)}; it must not hold { or }`,
    fix: () => "redisState({ keyPrefix: 'myapp:' }): letters, digits and punctuation other than braces",
  },
} as const;
