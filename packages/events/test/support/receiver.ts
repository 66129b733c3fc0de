import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the receiver does with an event delivery (challenges are echoed unless `challenge` says otherwise). */
export type Behaviour = (request: Received, response: ServerResponse, index: number) => void;

/**
 * A webhook receiver on 127.0.0.1 (ephemeral port) that records every POST and verifies event
 * deliveries with the reference Standard Webhooks verifier when given the secret.
 */
export class Receiver {
  readonly challenges: Received[] = [];
  readonly deliveries: Received[] = [];
  /** Deliveries the reference verifier accepted, parsed. */
  readonly verified: { eventId: string; name: string; data: unknown }[] = [];
  behaviour: Behaviour = (_r, response) => response.writeHead(204).end();
  challenge: 'echo' | 'wrong' | 'ignore' = 'echo';
  secret?: string;
  private waiters: (() => void)[] = [];
  private address?: string;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    const receiver: Receiver = new Receiver(
      createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (c: Buffer) => chunks.push(c));
        request.on('end', () => receiver.handle({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }, response));
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** Its address, which stays known after `stop` (to point a subscription at a closed port). */
  get url(): string {
    this.address ??= `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this.address;
  }

  private handle(request: Received, response: ServerResponse): void {
    const parsed = JSON.parse(request.body) as { type?: string; challenge?: string };
    if (parsed.type === 'verification') {
      this.challenges.push(request);
      if (this.challenge === 'ignore') response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challenge: this.challenge === 'echo' ? parsed.challenge : 'nope' }));
      return;
    }
    const index = this.deliveries.length;
    this.deliveries.push(request);
    if (this.secret) {
      try {
        const headers = request.headers as Record<string, string>;
        this.verified.push(new Webhook(this.secret).verify(request.body, headers) as never);
      } catch {
        // Not verified: left out of `verified`.
      }
    }
    this.behaviour(request, response, index);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once `count` event deliveries have arrived, or rejects after `ms`. */
  async waitFor(count: number, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.deliveries.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} deliveries within ${ms} ms, got ${this.deliveries.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A fresh Standard Webhooks secret: whsec_ and the base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}
