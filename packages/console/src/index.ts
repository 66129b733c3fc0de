export type { HandlerFacts, SpanRecord, StartupProblem } from './agent/span-record.js';
export type { ConsoleEvent, ServerState } from './server/console-server.js';
export { findAppSource } from './server/host-source.js';
export { type ConsoleOptions, type DevConsole, startConsole } from './server/start-console.js';
