// A raw 2026-07-28 stateless client: node:http with a keep-alive pool of N connections, each call
// one POST in the wire form the official v2 client sends (headers and `_meta` envelope), the JSON
// answer parsed by hand. No SDK on the client side, so the client is not the bottleneck.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { stopsWithProcess } from '@armature/test-redis';
import { type Runtime, runtimeArgv } from './runtime-command.js';

const VERSION = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'armature-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What a client adds to every request's `_meta`: a log level, and a progress token of its own per call. */
export interface Http2026Meta {
  readonly logLevel?: string;
  readonly progressTokens?: boolean;
}

export class Http2026Client {
  private readonly agent: Agent;
  private readonly url: URL;
  private readonly envelope: Record<string, unknown>;
  private nextId = 1;

  constructor(
    url: string,
    connections: number,
    private readonly meta: Http2026Meta = {},
  ) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
    this.envelope = meta.logLevel ? { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': meta.logLevel } : ENVELOPE;
  }

  /** One tools/call; resolves with its `result`, rejects on a JSON-RPC error or a non-200 status. */
  callTool(name: string, args: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    const _meta = this.meta.progressTokens ? { ...this.envelope, progressToken: `call-${id}` } : this.envelope;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta } });
    return this.post(name, body, true);
  }

  private post(name: string, body: string, mayRetry: boolean): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'mcp-method': 'tools/call',
            'mcp-name': name,
            'mcp-protocol-version': VERSION,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text}`));
            const message = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } };
            if (message.error) reject(new Error(`${message.error.code} ${message.error.message}`));
            else resolve(message.result);
          });
          res.on('error', reject);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as it went idle (its keep-alive timeout) while this
        // request was being written: send it again on a fresh socket, as Node's docs advise.
        if (mayRetry && req.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up')) {
          this.post(name, body, false).then(resolve, reject);
        } else reject(error);
      });
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A server entry of dist/servers (with `env` added, on `runtime`) that prints `listening <url>`; resolves once it does. */
export async function spawnHttpServer(
  entry: string,
  env: Record<string, string> = {},
  runtime: Runtime = 'node',
): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const [command, ...args] = runtimeArgv(runtime, new URL(`../servers/${entry}.js`, import.meta.url).pathname);
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  stopsWithProcess(child, 'SIGKILL');
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 4_000) stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const found = /^listening (\S+)$/m.exec(out)?.[1];
      if (found) resolve(found);
    });
    void exited.then(() => reject(new Error(`${entry} exited before listening\n${stderr}`)));
  });
  return {
    url,
    pid: child.pid as number,
    async close() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
