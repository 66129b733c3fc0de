/**
 * What `switchToHttp().getResponse()` returns for an MCP call: a response that records what a
 * guard, interceptor or exception filter writes to it (status, headers, body) instead of writing
 * to the socket, which carries the MCP stream. It answers the calls Express's and Fastify's
 * replies take (`status().json()`, `code().send()`, `setHeader`, `end`), so a filter written for
 * REST, or Nest's `BaseExceptionFilter`, shapes the MCP answer (see `toMcpOutcome`).
 */
export class McpResponse {
  statusCode = 200;
  body: unknown;
  /** True once something was written (a filter that writes has handled the error). */
  written = false;
  readonly headers: Record<string, string> = {};

  /** Nothing reaches the socket, so a filter may always answer (Express reads this). */
  get headersSent(): boolean {
    return false;
  }

  /** Fastify's adapter takes this response for a reply and reads `sent` and `raw.headersSent`. */
  get sent(): boolean {
    return false;
  }

  get raw(): this {
    return this;
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  code(code: number): this {
    return this.status(code);
  }

  header(name: string, value: unknown): this {
    this.headers[name.toLowerCase()] = String(value);
    return this;
  }

  setHeader(name: string, value: unknown): this {
    return this.header(name, value);
  }

  set(name: string, value: unknown): this {
    return this.header(name, value);
  }

  getHeader(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  json(body: unknown): this {
    return this.send(body);
  }

  send(body?: unknown): this {
    this.body = body;
    this.written = true;
    return this;
  }

  end(body?: unknown): this {
    return this.send(body);
  }
}
