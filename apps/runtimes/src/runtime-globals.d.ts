// The few members of Bun's and Deno's globals this package uses (neither ships npm typings that fit
// a Node project: @types/bun would replace Node's globals, Deno's types are not on npm).
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
  function serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): HttpServer;
}
