import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/**
 * One end of an in-memory link that carries each message as its JSON text, as stdio and Streamable
 * HTTP do: what a test receives is what a client receives (a `Date` arrives as its ISO string,
 * `undefined` members are gone), in both directions.
 */
export class JsonLink implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private other: JsonLink | undefined;
  private readonly queue: string[] = [];
  private closed = false;

  /** Two linked ends: one for the client, one for the server. */
  static pair(): [JsonLink, JsonLink] {
    const client = new JsonLink();
    const server = new JsonLink();
    client.other = server;
    server.other = client;
    return [client, server];
  }

  async start(): Promise<void> {
    for (let text = this.queue.shift(); text !== undefined; text = this.queue.shift()) this.onmessage?.(JSON.parse(text));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.other) throw new Error('the testing link is closed');
    this.other.receive(JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const other = this.other;
    this.other = undefined;
    try {
      await other?.close();
    } finally {
      this.onclose?.();
    }
  }

  private receive(text: string): void {
    if (this.onmessage) this.onmessage(JSON.parse(text));
    else this.queue.push(text);
  }
}
