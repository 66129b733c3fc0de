const MAX_TIMER_MS = 2_147_483_647;

/** A remote MCP server started as a child process, spoken to over its stdin and stdout. */
export interface RemoteStdioTarget {
  /** The program, e.g. `node` or `npx`. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Its environment. Default: the SDK's safe subset of this process's (PATH, HOME, ...), not all of it. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Where its stderr goes. Default `'inherit'` (this process's stderr, where its logs belong). */
  readonly stderr?: 'inherit' | 'ignore';
}

/** A remote MCP server reached over Streamable HTTP. */
export interface RemoteHttpTarget {
  /** Its MCP endpoint, e.g. `https://weather.internal/mcp`. */
  readonly url: string;
  /** Headers sent with every request (an API key of the app's own, say). The caller's token is never forwarded. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How the app speaks to one remote server; what `remoteServer()` takes. */
export type RemoteServerOptions = (RemoteStdioTarget | RemoteHttpTarget) & {
  /**
   * The revision to speak: `'auto'` (default) uses 2026-07-28 when the remote offers it, else
   * 2025-11-25; a revision pins it.
   */
  readonly protocolVersion?: 'auto' | '2025-11-25';
  /**
   * Milliseconds a forwarded request may wait for the remote between two signs of life (a progress
   * notification restarts the count); also how long a connection attempt may take. Default 60 000.
   * The app's own `timeoutMs` bounds the whole call as for any handler.
   */
  readonly timeoutMs?: number;
  /**
   * Milliseconds a forwarded call may take in all, whatever progress the remote reports (progress
   * restarts `timeoutMs`, never this); past it the remote's request is cancelled and the caller
   * gets a tool error. Default 600 000 (10 minutes).
   */
  readonly maxCallMs?: number;
  /** Longest wait between two reconnection attempts while the remote is away. Default 30 000 ms. */
  readonly maxReconnectDelayMs?: number;
};

/**
 * A remote MCP server to serve as part of the app, made by `remoteServer()` and mounted with
 * `mount(prefix, remote, options)`: its catalogue appears under the prefix, and its calls pass
 * through the app's guards, interceptors, rate limits and tracing.
 */
export class RemoteServerRef {
  constructor(readonly options: Readonly<RemoteServerOptions>) {}

  /** What the remote is, for messages: its URL, or its command line. */
  get label(): string {
    const options = this.options as Partial<RemoteStdioTarget & RemoteHttpTarget>;
    if (typeof options.url === 'string') return options.url;
    return [options.command, ...(options.args ?? [])].join(' ');
  }

  /** What is wrong with the options, or undefined when they can be used. */
  problem(): string | undefined {
    const options = this.options as Partial<RemoteStdioTarget & RemoteHttpTarget> & RemoteServerOptions;
    const hasUrl = options.url !== undefined;
    const hasCommand = options.command !== undefined;
    if (hasUrl === hasCommand) return hasUrl ? 'it names both a url and a command' : 'it names neither a url nor a command';
    if (hasUrl) {
      if (typeof options.url !== 'string' || !URL.canParse(options.url)) return `url ${JSON.stringify(options.url)} is not a URL`;
      if (!/^https?:$/.test(new URL(options.url).protocol)) return `url ${options.url} is not http(s)`;
    } else if (typeof options.command !== 'string' || options.command === '') return 'command must be a non-empty string';
    else if (options.args !== undefined && !(Array.isArray(options.args) && options.args.every((a) => typeof a === 'string')))
      return 'args must be a list of strings';
    if (options.protocolVersion !== undefined && options.protocolVersion !== 'auto' && options.protocolVersion !== '2025-11-25')
      return `protocolVersion ${JSON.stringify(options.protocolVersion)} is neither 'auto' nor '2025-11-25'`;
    for (const key of ['timeoutMs', 'maxCallMs', 'maxReconnectDelayMs'] as const) {
      const value = options[key];
      // A timer cannot wait longer than 2^31 - 1 ms (about 24.8 days): a longer one would fire at once.
      if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= MAX_TIMER_MS))
        return `${key} must be a positive number of milliseconds, at most ${MAX_TIMER_MS}`;
    }
    return undefined;
  }
}

/**
 * A remote MCP server (a command to run, or a Streamable HTTP URL) to mount in the app.
 *
 * @example
 * ```ts
 * createMcpApp([
 *   NotesServer,
 *   mount('files', remoteServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] })),
 *   mount('weather', remoteServer({ url: 'https://weather.internal/mcp' }), { guards: [StaffOnly] }),
 * ]);
 * ```
 */
export function remoteServer(options: RemoteServerOptions): RemoteServerRef {
  return new RemoteServerRef(Object.freeze({ ...options }));
}
