export { type RedisClusterNode, type RedisStateOptions, redisState } from './redis-state.js';
