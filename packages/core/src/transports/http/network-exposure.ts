import { localhostAllowedHostnames } from '@modelcontextprotocol/server';

/** True for an address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * The warning owed when a server binds an address other machines can reach, without
 * authentication, while its Host check still trusts `localhost`: any client on the network can
 * send `Host: localhost`, so that check no longer protects anything. Undefined when there is none.
 */
export function exposureWarning(options: { host: string; auth?: unknown; allowedHosts?: string[] | false }): string | undefined {
  if (isLoopbackHost(options.host) || options.auth) return undefined;
  const allowed = options.allowedHosts === undefined ? localhostAllowedHostnames() : options.allowedHosts;
  if (allowed !== false && !allowed.some((name) => isLoopbackHost(name))) return undefined;
  return (
    `McpApp.listenHttp: listening on ${options.host} without authentication; any machine that can reach it can call every tool ` +
    `(the Host check trusts localhost, which any client can claim). Add \`auth: { verifier, resource, authorizationServers }\`, ` +
    `bind \`host: '127.0.0.1'\`, or set \`allowedHosts: ['mcp.example.com']\` behind a proxy that authenticates.`
  );
}
