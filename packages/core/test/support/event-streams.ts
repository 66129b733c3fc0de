import { type ClientRequest, request } from 'node:http';

// A 2025-11-25 session's GET streams as a client holds them over node:http: opened, read event by
// event, dropped, resumed with Last-Event-ID. The engine-fronts tests compare what Armature's
// session transport writes on them with what the SDK's writes.

/** An open SSE response, read as it arrives. */
export interface HeldStream {
  readonly status: number;
  readonly contentType: string;
  /** Resolves once the body holds `count` events (comments aside), or ended, with the body so far. */
  events(count: number): Promise<string>;
  /** The body once the server ended it. */
  ended(): Promise<string>;
  /** The client goes away. */
  drop(): void;
}

/** Opens a GET of the session at `url` with `headers`; resolves once its response's headers arrived. */
export function holdStream(url: string, headers: Record<string, string>): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined;
    req = request(url, { method: 'GET', headers }, (res) => {
      let body = '';
      let done = false;
      const waiting = new Set<() => void>();
      const wake = () => {
        for (const check of waiting) check();
      };
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
        wake();
      });
      res.on('end', () => {
        done = true;
        wake();
      });
      res.on('error', () => undefined);
      const until = (ready: () => boolean) =>
        new Promise<string>((settle, fail) => {
          const timer = setTimeout(() => fail(new Error(`stream timed out with ${JSON.stringify(body)}`)), 20_000);
          const check = () => {
            if (!ready() && !done) return;
            clearTimeout(timer);
            waiting.delete(check);
            settle(body);
          };
          waiting.add(check);
          check();
        });
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type']),
        events: (count) => until(() => body.split('\n\n').filter((event) => /^(id|data|event):/m.test(event)).length >= count),
        ended: () => until(() => false),
        drop: () => req?.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The last event id in `body`. */
export function lastEventId(body: string): string {
  const ids = [...body.matchAll(/^id: (.+)$/gm)].map((match) => match[1] as string);
  return ids.at(-1) ?? '';
}
