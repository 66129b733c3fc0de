/** A JSON-RPC message as seen on the wire (requests, notifications and responses alike). */
export interface WireMessage {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The parts of a client transport (v1 or v2 SDK) the recorder wraps. */
interface Tappable {
  onmessage?: (...args: never[]) => void;
  send(...args: never[]): Promise<void>;
}

/** Every message a client sent and received since `recordTraffic` was called, in order. */
export interface Traffic {
  readonly sent: WireMessage[];
  readonly received: WireMessage[];
  /** `notifications/progress` received for `token`. */
  progressFor(token: unknown): Array<{ progress: number; total?: number; message?: string }>;
}

/**
 * Records a connected client's wire traffic by wrapping its transport's `onmessage` and `send`.
 * Call it after `client.connect(...)`, which installs the `onmessage` being wrapped. This is how the
 * tests see what the callbacks hide: progress tokens, ids, and responses that must never come.
 */
export function recordTraffic(transport: Tappable): Traffic {
  const sent: WireMessage[] = [];
  const received: WireMessage[] = [];
  const deliver = transport.onmessage as ((...args: unknown[]) => void) | undefined;
  if (!deliver) throw new Error('recordTraffic: connect the client first');
  transport.onmessage = ((message: WireMessage, ...rest: unknown[]) => {
    received.push(message);
    deliver.call(transport, message, ...rest);
  }) as Tappable['onmessage'];
  const send = transport.send.bind(transport) as (...args: unknown[]) => Promise<void>;
  transport.send = ((message: WireMessage, ...rest: unknown[]) => {
    sent.push(message);
    return send(message, ...rest);
  }) as Tappable['send'];
  return {
    sent,
    received,
    progressFor: (token) =>
      received
        .filter((m) => m.method === 'notifications/progress' && m.params?.progressToken === token)
        .map((m) => {
          const { progressToken: _token, ...rest } = m.params as {
            progressToken: unknown;
            progress: number;
            total?: number;
            message?: string;
          };
          return rest;
        }),
  };
}

/** The last `tools/call` request the client sent (to read its id and `_meta.progressToken`). */
export function lastToolCall(traffic: Traffic, name: string): WireMessage {
  const call = [...traffic.sent].reverse().find((m) => m.method === 'tools/call' && m.params?.name === name);
  if (!call) throw new Error(`no tools/call of "${name}" was sent`);
  return call;
}

/**
 * Records the traffic of a connected client from now on, e.g. the `client` of a `TestingApp`
 * (`@armature/testing`), whose transport the test does not hold itself.
 */
export function recordClientTraffic(client: { readonly transport?: Tappable | undefined }): Traffic {
  if (!client.transport) throw new Error('recordClientTraffic: connect the client first');
  return recordTraffic(client.transport);
}
