export { type RedisStateOptions, redisState } from './redis-state.js';
export type { RedisClusterNode } from './redis-target.js';
