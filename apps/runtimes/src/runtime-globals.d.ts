// The few members of Bun's and Deno's globals (and bun:test) this package uses, so that tsc checks
// its files: neither ships npm typings that fit a Node project (@types/bun would replace Node's
// globals, Deno's types are not on npm).
declare namespace Bun {
  interface Server {
    readonly port: number;
    requestIP(request: Request): { address: string } | null;
    stop(closeActiveConnections?: boolean): Promise<void>;
  }
  function serve(options: {
    port: number;
    hostname: string;
    idleTimeout?: number;
    fetch(request: Request, server: Server): Response | Promise<Response>;
  }): Server;
}

declare namespace Deno {
  interface HttpServer {
    readonly addr: { port: number };
    shutdown(): Promise<void>;
  }
  function test(name: string, fn: () => Promise<void>): void;
  function serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): HttpServer;
}

declare module 'bun:test' {
  export function describe(name: string, fn: () => void): void;
  export function it(name: string, fn: () => Promise<void>): void;
  export function expect(actual: unknown): { toBe(expected: unknown): void; toBeInstanceOf(type: Function): void };
}
