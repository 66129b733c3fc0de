export { RedisCluster } from './redis-cluster.js';
export { freePort, RedisServer } from './redis-server.js';
export { type Instance, RoundRobinProxy, type Routed } from './round-robin-proxy.js';
export { stopsWithProcess } from './stops-with-process.js';
