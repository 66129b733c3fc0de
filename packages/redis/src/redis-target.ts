import { ArmatureBuildError, type BuildProblem } from '@armature/core';
import type { RedisTarget } from './connection.js';
import { REDIS_BUILD_MESSAGES as M } from './messages.js';
import type { RedisStateOptions } from './redis-state.js';

/** A node of a Redis Cluster: its address, or a `redis://` / `rediss://` URL (user and password in it). */
export type RedisClusterNode = { host: string; port: number } | string;

/** Where `redisState` connects, or every problem of its options at once (ARM194, ARM195). */
export function targetOf(options: Pick<RedisStateOptions, 'url' | 'cluster'>, prefix: string): RedisTarget {
  const problems: BuildProblem[] = [];
  const problem = (definition: (typeof M)[keyof typeof M], message: string) =>
    problems.push({ where: 'redisState', code: definition.code, message, fix: definition.fix() });
  if (/[{}]/.test(prefix)) problem(M.badKeyPrefix, M.badKeyPrefix.message(prefix));
  const { cluster } = options;
  let target: RedisTarget = { url: options.url ?? 'redis://127.0.0.1:6379' };
  if (cluster !== undefined) {
    if (options.url !== undefined) problem(M.badServer, M.badServer.message('both url and cluster are given'));
    if (!Array.isArray(cluster) || cluster.length === 0)
      problem(M.badServer, M.badServer.message('cluster must list one or more nodes of the Redis Cluster'));
    else {
      const nodes = cluster.map(nodeOf);
      nodes.forEach((node, i) => {
        if (!node)
          problem(
            M.badServer,
            M.badServer.message(`cluster[${i}] is ${shownNode(cluster[i])}, not { host, port } nor a redis:// or rediss:// URL`),
          );
      });
      const first = cluster.find((node): node is string => typeof node === 'string');
      if (nodes.every(Boolean))
        target = { nodes: nodes as { host: string; port: number }[], nodeOptions: first ? credentialsOf(new URL(first)) : {} };
    }
  }
  if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot use this Redis', 'in redisState({...})');
  return target;
}

/** A cluster node's host and port, or undefined when it is neither { host, port } nor a Redis URL. */
function nodeOf(node: unknown): { host: string; port: number } | undefined {
  if (typeof node === 'string') {
    const url = URL.canParse(node) ? new URL(node) : undefined;
    if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname) return undefined;
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 6379) };
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const { host, port } = node as { host?: unknown; port?: unknown };
  if (typeof host !== 'string' || host === '' || !Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535)
    return undefined;
  return { host, port: port as number };
}

/** A refused node for the message: as JSON, cut short, without the password a URL may hold. */
function shownNode(node: unknown): string {
  if (typeof node === 'string') {
    const hidden = node.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
    return JSON.stringify(hidden.length > 100 ? `${hidden.slice(0, 100)}...` : hidden);
  }
  try {
    return JSON.stringify(node) ?? String(node);
  } catch {
    return String(node);
  }
}

/** The user, password and TLS a node URL names. */
function credentialsOf(url: URL): Extract<RedisTarget, { nodes: unknown }>['nodeOptions'] {
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
