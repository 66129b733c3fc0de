import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { bareHost, type EgressPolicy, RefusedTargetError } from './egress.js';

/** The failure categories of the events draft (`deliveryStatus.lastError`, `CallbackEndpointError.data.reason`). */
export type FailureCategory = 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

export type PostOutcome =
  | { readonly ok: true; readonly status: number; readonly body: string }
  | { readonly ok: false; readonly category: FailureCategory; readonly retryable: boolean; readonly detail: string };

export interface PostOptions {
  readonly policy: EgressPolicy;
  /** The whole exchange (connect, headers, body) must end within this. */
  readonly timeoutMs: number;
  /** Most bytes of the receiver's answer read; the rest is dropped. */
  readonly maxResponseBytes: number;
}

const TLS_CODES = /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_SSL_)/;

/**
 * POSTs one signed body to a receiver through the egress policy. Never follows a redirect (a 3xx is
 * a failed delivery), never reads more than `maxResponseBytes` of the answer, never waits past
 * `timeoutMs`. A 413 is not retried (the draft's rule); other failures are.
 */
export function postWebhook(target: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostOutcome> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve({ ok: false, category: 'connection_refused', retryable: false, detail: 'not a URL' });
  }
  const host = bareHost(url);
  // Plain http only to an address the app allowed on purpose (a local receiver), never the open internet.
  const listedOnly = url.protocol !== 'https:';
  // Node connects to an IP literal without calling `lookup`: the literal is checked here instead.
  if (isIP(host) !== 0 && !options.policy.permits(host, listedOnly)) {
    return Promise.resolve({ ok: false, category: 'connection_refused', retryable: false, detail: `refused target ${host}` });
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const request = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: options.policy.lookup(listedOnly),
      agent: false,
    });
    const timer = setTimeout(
      () => finish({ ok: false, category: 'timeout', retryable: true, detail: `no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof RefusedTargetError) {
        return finish({ ok: false, category: 'connection_refused', retryable: true, detail: error.message });
      }
      const tls = TLS_CODES.test(error.code ?? '');
      finish({ ok: false, category: tls ? 'tls_error' : 'connection_refused', retryable: true, detail: error.code ?? error.message });
    });
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size >= options.maxResponseBytes) return;
        chunks.push(chunk.subarray(0, options.maxResponseBytes - size));
        size += chunk.length;
      });
      response.on('error', () => undefined);
      response.on('end', () => {
        if (status >= 200 && status < 300) {
          return finish({ ok: true, status, body: Buffer.concat(chunks).toString('utf8') });
        }
        const category: FailureCategory = status >= 500 ? 'http_5xx' : 'http_4xx';
        finish({ ok: false, category, retryable: status !== 413, detail: `HTTP ${status}` });
      });
    });
    request.end(body);
  });
}
