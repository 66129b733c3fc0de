import type { McpServer as SdkMcpServer, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { bindNotificationValve } from '../../context/notification-valve.js';
import type { ServerEvents } from '../../observability/server-events.js';
import { guardStdout } from '../../seams/node-stdout.js';
import type { MessageLimits } from '../../validation/json-prescan.js';
import { LineTransport } from './line-transport.js';

export interface StdioOptions {
  /** Nesting and size limits checked on each message before it is parsed. */
  messageLimits?: MessageLimits;
  /** Largest message accepted on stdin. Default 4 MiB. */
  maxMessageBytes?: number;
  /**
   * Most `ctx.progress`/`ctx.log` notifications kept while the client does not read stdout
   * (progress merged per token, log lines beyond dropped). Default 1,000.
   */
  maxPendingNotifications?: number;
  /**
   * Exit the process once stdin closes (the client went away), after at most `exitGraceMs` for
   * calls in flight. Default true: a stdio server belongs to its client.
   */
  exitOnClose?: boolean;
  /** Grace period before exiting when stdin closes. Default 300 ms. */
  exitGraceMs?: number;
  /** Streams to use instead of the process's own (tests). Console redirection is skipped then. */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

export interface StdioHandle {
  close(): Promise<void>;
}

/**
 * Serves both protocol revisions over stdio with one SDK server pinned to the connection. `events`
 * hears the stop when stdin closes and the process exits.
 */
export function serveOverStdio(factory: (wire: Transport) => SdkMcpServer, options: StdioOptions = {}, events?: ServerEvents): StdioHandle {
  const custom = options.stdin !== undefined || options.stdout !== undefined;
  const input = (options.stdin ?? process.stdin) as import('node:stream').Readable;
  const output = (options.stdout ?? process.stdout) as import('node:stream').Writable;
  const write = custom ? undefined : guardStdout();
  const exitOnClose = options.exitOnClose ?? !custom;
  const transport = new LineTransport(input, output, {
    maxMessageBytes: options.maxMessageBytes,
    messageLimits: options.messageLimits,
    maxPendingNotifications: options.maxPendingNotifications,
    write,
    events,
    onClosed: exitOnClose
      ? () => {
          events?.emit({ event: 'stopping', reason: 'stdin closed' });
          // The process ends when the grace period is over, or before it once nothing is left to run.
          process.once('exit', () => events?.emit({ event: 'stopped' }));
          setTimeout(() => process.exit(0), options.exitGraceMs ?? 300).unref();
        }
      : undefined,
  });
  // The factory gets the wire: the frequent requests of the pinned connection may be answered straight from it.
  const handle = serveStdio(
    () => {
      const server = factory(transport);
      // The handlers' ctx.progress/ctx.log find this connection's backpressure through their server.
      bindNotificationValve(server.server, transport.notifications);
      return server;
    },
    {
      transport,
      onerror: (error) => process.stderr.write(`[armature] stdio: ${error.message}\n`),
    },
  );
  return handle;
}
