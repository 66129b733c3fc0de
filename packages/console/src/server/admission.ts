import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why the console refused a request: what the response says, and its status. */
export interface Refusal {
  readonly status: 403 | 401;
  readonly message: string;
}

/** The header the page sends the token in (the page's own URL carries it as `?token=`). */
export const TOKEN_HEADER = 'x-armature-console-token';

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a request may reach the console: its Host must name the console's own loopback address
 * (a DNS-rebinding page reaches 127.0.0.1 under a foreign name), an Origin, when the browser sends
 * one, must be the console's own, and it must carry the token (in `?token=` or the header).
 */
export function admit(req: IncomingMessage, port: number, token: string): Refusal | undefined {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(req.headers.host ?? '')) {
    return { status: 403, message: `the console answers only at http://127.0.0.1:${port} (Host was "${req.headers.host ?? ''}")` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((host) => origin === `http://${host}`)) {
    return { status: 403, message: `requests from another origin (${origin}) are refused` };
  }
  const url = new URL(req.url ?? '/', `http://${hosts[0]}`);
  const given = url.searchParams.get('token') ?? (req.headers[TOKEN_HEADER] as string | undefined);
  if (!sameToken(given ?? undefined, token)) {
    return { status: 401, message: 'the console needs the token of the URL armature printed (open that URL)' };
  }
  return undefined;
}
