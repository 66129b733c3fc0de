import type * as Client from '@modelcontextprotocol/client';
import type * as Stdio from '@modelcontextprotocol/client/stdio';

/** The official client SDK, as the remote parts use it. */
export type ClientSdk = typeof Client & Pick<typeof Stdio, 'StdioClientTransport'>;

let loading: Promise<ClientSdk> | undefined;
let loaded: ClientSdk | undefined;

/**
 * The official client, loaded when the first remote server is connected: an app without one
 * never loads it, so its cold start does not pay for it.
 */
export function clientSdk(): Promise<ClientSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/client'), import('@modelcontextprotocol/client/stdio')]).then(
    ([client, stdio]) => {
      loaded = { ...client, StdioClientTransport: stdio.StdioClientTransport };
      return loaded;
    },
  );
  return loading;
}

/** The client SDK once loaded (an error can only be one of its classes after that). */
export function loadedClientSdk(): ClientSdk | undefined {
  return loaded;
}
