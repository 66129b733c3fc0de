import { messageOf } from '../messages/call-messages.js';
import { logMessages } from '../messages/log-messages.js';
import { otelApi } from '../seams/opentelemetry.js';
import type { ServerEvent, ServerEvents } from './server-events.js';
import { sourceMappedStack } from './source-mapped-stack.js';

export type ServerLogLevel = 'info' | 'warn' | 'error';

/**
 * A logger with pino's calling convention, `logger.error(fields, message)`: a pino logger fits as
 * it is, and so does anything shaped like it. `child`, when there, gives the app's lines a
 * `component: 'armature'` binding.
 */
export interface ServerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  child?(bindings: Record<string, unknown>): ServerLogger;
}

/** One of Armature's own loggers, writing to stderr: `level` is the least level written (default `'info'`). */
export interface StderrLog {
  format: 'text' | 'json';
  level?: ServerLogLevel;
}

/**
 * Where the server's own events are logged: `'json'` (one JSON object a line on stderr), `'text'`
 * (`[armature] ...` lines on stderr), either with a least level, your pino-like logger, or `false`.
 */
export type LoggerOption = 'text' | 'json' | StderrLog | ServerLogger | false;

const LEVEL_OF: Readonly<Record<ServerEvent['event'], ServerLogLevel>> = {
  started: 'info',
  stopping: 'info',
  stopped: 'info',
  refused: 'warn',
  misconfigured: 'warn',
  'call-failed': 'error',
  'extension-close-failed': 'error',
  'remote-up': 'info',
  'remote-down': 'warn',
  'remote-skipped': 'warn',
};
const RANK: Readonly<Record<ServerLogLevel, number>> = { info: 30, warn: 40, error: 50 };

/**
 * Without a `logger` option: what Armature wrote before it had logs, a text line for each failed
 * call (a fault of the server's own code), and a line for a risky setting (told once). Refusals
 * are what clients provoke: one line each by default would let any client fill the server's logs,
 * so they are written once the app chooses a logger (and its level); start and stop stay quiet, so
 * a stdio server's stderr is empty while all is well.
 */
const DEFAULT_LOG: StderrLog = { format: 'text', level: 'error' };

/** The line and fields (besides `event`) of one event. */
function recordOf(event: ServerEvent, text: boolean): { message: string; fields: Record<string, unknown> } {
  switch (event.event) {
    case 'started': {
      const { event: _, ...fields } = event;
      return { message: logMessages.started(event.transport, event.url), fields };
    }
    case 'stopping':
      return { message: logMessages.stopping(event.reason), fields: { reason: event.reason } };
    case 'stopped':
      return { message: logMessages.stopped(), fields: {} };
    case 'refused': {
      const { event: _, message, ...fields } = event;
      return { message: logMessages.refused(event.reason, message), fields };
    }
    case 'misconfigured': {
      const { event: _, message, ...fields } = event;
      return { message: logMessages.misconfigured(message), fields };
    }
    case 'call-failed': {
      const { error, what, label, requestId, errorId } = event;
      // A text line has nowhere else to put the stack (its line breaks escaped); a structured one carries it in `err`.
      const detail = text && error instanceof Error && error.stack ? sourceMappedStack(error.stack) : messageOf(error);
      const ids = errorId === undefined ? { requestId } : { requestId, errorId };
      return { message: logMessages.callFailed(label, requestId, errorId, detail), fields: { what, ...ids, err: error } };
    }
    case 'extension-close-failed': {
      const { error, extension } = event;
      const detail = text && error instanceof Error && error.stack ? sourceMappedStack(error.stack) : messageOf(error);
      return { message: logMessages.extensionCloseFailed(extension, detail), fields: { extension, err: error } };
    }
    case 'remote-up': {
      const { event: _, ...fields } = event;
      return { message: logMessages.remoteUp(event.part, event.remote, event.revision), fields };
    }
    case 'remote-down': {
      const { event: _, ...fields } = event;
      return { message: logMessages.remoteDown(event.part, event.remote, event.reason, event.retryInMs), fields };
    }
    case 'remote-skipped': {
      const { event: _, ...fields } = event;
      return { message: logMessages.remoteSkipped(event.part, event.name, event.reason), fields };
    }
  }
}

/** C0 and C1 controls, DEL, and the line and paragraph separators: none may reach a log line raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `line` with every control character written as its JSON escape (`\n`, `\u001b`, ...): whatever a
 * caller put in an id, a header or an error message, one record stays one line and no terminal
 * escape reaches stderr. Both formats go through it: a JSON line only has DEL, C1 controls and
 * U+2028/2029 left to escape (`JSON.stringify` already escaped the rest), and stays valid JSON.
 */
function escapeControls(line: string): string {
  return line.replace(CONTROLS, (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The active span's ids, when a tracer provider is registered and a span is current. */
function traceFields(): { traceId?: string; spanId?: string } {
  const api = otelApi();
  const context = api?.trace.getActiveSpan()?.spanContext();
  return context && api?.isSpanContextValid(context) ? { traceId: context.traceId, spanId: context.spanId } : {};
}

/** `err` as pino's standard serializer writes it: type, message, stack. */
function serializedError(error: unknown): Record<string, unknown> {
  if (error instanceof Error)
    return { type: error.name, message: messageOf(error), ...(error.stack ? { stack: sourceMappedStack(error.stack) } : {}) };
  return { type: typeof error, message: messageOf(error) };
}

function isServerLogger(option: unknown): option is ServerLogger {
  const logger = option as Partial<ServerLogger> | null;
  return (
    typeof logger === 'object' &&
    logger !== null &&
    typeof logger.info === 'function' &&
    typeof logger.warn === 'function' &&
    typeof logger.error === 'function'
  );
}

/** Why `option` is not a `logger` option, or undefined when it is one. */
export function loggerOptionProblem(option: unknown): string | undefined {
  if (option === undefined || option === false || option === 'text' || option === 'json' || isServerLogger(option)) return undefined;
  const log = option as Partial<StderrLog> | null;
  if (typeof log === 'object' && log !== null && (log.format === 'text' || log.format === 'json')) {
    if (log.level === undefined || log.level in RANK) return undefined;
    return `logger.level is ${JSON.stringify(log.level)}; it must be 'info', 'warn' or 'error'`;
  }
  return typeof option === 'string' ? `logger is ${JSON.stringify(option)}` : 'logger is an object without info, warn and error methods';
}

/**
 * Logs every event of `events` as `option` says; returns the function that stops it. `onError`:
 * the app has its own reporter of failed calls, which replaces the default log's lines for them
 * (it did before logs existed); a logger the app chose logs them all the same.
 */
export function startServerLog(events: ServerEvents, option: LoggerOption | undefined, onError: boolean): () => void {
  if (option === false) return () => undefined;
  if (isServerLogger(option)) {
    const logger = option.child ? option.child({ component: 'armature' }) : option;
    return events.on((event) => {
      const { message, fields } = recordOf(event, false);
      logger[LEVEL_OF[event.event]]({ event: event.event, ...fields, ...traceFields() }, message);
    });
  }
  const log = option === undefined ? DEFAULT_LOG : typeof option === 'string' ? { format: option } : option;
  const least = RANK[log.level ?? 'info'];
  const skipFailedCalls = option === undefined && onError;
  // Always stderr: under stdio, stdout carries the protocol and nothing else.
  const write = (line: string) => process.stderr.write(`${escapeControls(line)}\n`);
  const text = log.format === 'text';
  return events.on((event) => {
    const level = LEVEL_OF[event.event];
    // Checked before the line is made: a flood of refusals below the level costs a lookup each.
    const told = option === undefined && event.event === 'misconfigured';
    if ((RANK[level] < least && !told) || (skipFailedCalls && event.event === 'call-failed')) return;
    const { message, fields } = recordOf(event, text);
    if (text) {
      write(`[armature] ${message}`);
      return;
    }
    const { err, ...rest } = fields;
    const record = {
      time: new Date().toISOString(),
      level,
      event: event.event,
      message,
      ...rest,
      ...(err !== undefined ? { err: serializedError(err) } : {}),
      ...traceFields(),
    };
    write(JSON.stringify(record));
  });
}
