export { type RedisStateOptions, redisState } from './redis-state.js';
