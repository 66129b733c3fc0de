// The IPC control channel between the script and the server child process.

export type ControlCommand =
  | { cmd: 'memory'; gc?: boolean }
  | { cmd: 'stats' }
  | { cmd: 'reset' }
  | { cmd: 'loop-reset' }
  | { cmd: 'loop-read' }
  | { cmd: 'sample-start'; everyMs: number }
  | { cmd: 'sample-stop' }
  | { cmd: 'calls' };

export interface MemoryReport {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface StatsReport {
  liveScopes: number;
  calls: number;
  constructed: number;
  disposed: number;
  thrown: number;
  reported: number;
  hangStarted: number;
  hangAborted: number;
  floodsDone: number;
  floodMs: number;
  unhandledRejections: number;
  firstUnhandled?: string;
  uptimeMs: number;
  pid: number;
  timeoutMsOption: number | null;
  /** Active libuv handles (sockets, timers, servers): open connections show here. */
  handles: number;
}

export interface LoopReport {
  /** Longest event-loop delay seen since the last reset, in ms. */
  maxMs: number;
  p99Ms: number;
  samples: number;
  /** CPU time (user + system, all threads) the server used since the reset: wall-clock delay well above it means other load. */
  cpuMs: number;
}

export interface SampleReport {
  /** Peak of each figure over the sampling window, and the value when sampling started. */
  start: MemoryReport;
  peak: MemoryReport;
  samples: number;
}

/** `slow` calls by JSON-RPC id: [id, starts, aborts, done]. */
export type CallsReport = Array<[string, number, number, boolean]>;

export interface ReadyMessage {
  ready: true;
  url?: string;
  pid: number;
}

export interface ControlReply {
  reply: number;
  ok: boolean;
  data?: unknown;
  error?: string;
}
