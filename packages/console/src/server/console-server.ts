import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HandlerFacts, SpanRecord, StartupProblem } from '../agent/span-record.js';
import { admit } from './admission.js';

/** Where the server under the console is: starting, serving at `url`, failed to start, or gone. */
export type ServerState =
  | { readonly state: 'starting' }
  | { readonly state: 'up'; readonly url: string; readonly handlers: Readonly<Record<string, HandlerFacts>> }
  | { readonly state: 'failed'; readonly message: string; readonly problems: readonly StartupProblem[] }
  | { readonly state: 'down'; readonly reason: string };

/** What the page hears on its event stream. */
export type ConsoleEvent =
  | (ServerState & { readonly type: 'server'; readonly generation: number })
  | { readonly type: 'spans'; readonly spans: readonly SpanRecord[] };

const UI = new URL('./ui/', new URL('..', import.meta.url));
const ASSETS: Readonly<Record<string, string>> = { '/console.js': 'text/javascript', '/console.css': 'text/css' };
const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The page loads only its own script and style, and renders the server's texts as text (no HTML).
  // MCP Apps run in sandboxed srcdoc frames, which inherit this policy (and add the app's own): their
  // inline scripts need 'unsafe-inline'; the frames have an opaque origin and reach nothing but the bridge.
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' data: blob:; frame-ancestors 'none'",
};

function page(token: string): string {
  const q = `?token=${encodeURIComponent(token)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Armature console</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/console.css${q}"></head>
<body><div id="console"></div><script type="module" src="/console.js${q}"></script></body></html>`;
}

/**
 * The console's own HTTP server on 127.0.0.1: the page, its script, the event stream (server state
 * and spans, as server-sent events) and `/mcp`, relayed to the app the console serves so that the
 * page's MCP client (the official one, running in the page) talks to it same-origin. Every request
 * needs the token and the console's own Host and Origin.
 */
export class ConsoleServer {
  readonly token = randomBytes(24).toString('base64url');
  private readonly http: Server;
  private readonly streams = new Set<ServerResponse>();
  private current: ConsoleEvent = { type: 'server', state: 'starting', generation: 0 };
  private port = 0;

  constructor() {
    this.http = createServer((req, res) => this.handle(req, res));
  }

  /** Listens on a free port (or `port`) of 127.0.0.1; returns the URL to open, token included. */
  async listen(port = 0): Promise<string> {
    await new Promise<void>((done, fail) => {
      this.http.once('error', fail);
      this.http.listen(port, '127.0.0.1', done);
    });
    this.port = (this.http.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}/?token=${this.token}`;
  }

  /** The server's new state; each `starting` opens a new generation, which the page reconnects to. */
  setServer(state: ServerState): void {
    const generation = this.current.type === 'server' && state.state !== 'starting' ? this.current.generation : this.generation() + 1;
    this.current = { type: 'server', ...state, generation };
    this.broadcast(this.current);
  }

  spans(spans: readonly SpanRecord[]): void {
    this.broadcast({ type: 'spans', spans });
  }

  async close(): Promise<void> {
    for (const stream of this.streams) stream.end();
    this.http.closeAllConnections();
    await new Promise((done) => this.http.close(done));
  }

  private generation(): number {
    return this.current.type === 'server' ? this.current.generation : 0;
  }

  private broadcast(event: ConsoleEvent): void {
    const line = `data: ${JSON.stringify(event)}\n\n`;
    for (const stream of this.streams) stream.write(line);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const refusal = admit(req, this.port, this.token);
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end(`${refusal.message}\n`);
      req.resume();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://console').pathname;
    if (path === '/mcp') {
      this.relay(req, res);
      return;
    }
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET', ...SECURITY_HEADERS }).end();
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS }).end(page(this.token));
    } else if (path === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive', ...SECURITY_HEADERS });
      res.write(`data: ${JSON.stringify(this.current)}\n\n`);
      this.streams.add(res);
      res.on('close', () => this.streams.delete(res));
    } else if (ASSETS[path]) {
      res.writeHead(200, { 'content-type': ASSETS[path], ...SECURITY_HEADERS }).end(readFileSync(new URL(`.${path}`, UI)));
    } else {
      res.writeHead(404, SECURITY_HEADERS).end();
    }
  }

  /** `/mcp` to the app's endpoint, streamed both ways (SSE answers included), without the page's token, cookies or Origin. */
  private relay(req: IncomingMessage, res: ServerResponse): void {
    if (this.current.type !== 'server' || this.current.state !== 'up') {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('the server is not up\n');
      req.resume();
      return;
    }
    const target = new URL(this.current.url);
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    for (const name of ['origin', 'referer', 'cookie', 'x-armature-console-token']) delete headers[name];
    const out = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('the server went away\n');
      else res.destroy();
    });
    res.on('close', () => out.destroy());
    req.pipe(out);
  }
}
