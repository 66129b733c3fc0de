// Whether the app registered OpenTelemetry, read without loading `@opentelemetry/api`: the API keeps
// what an app registers (tracer and meter providers, context manager, propagator) in one global
// object, `globalThis[Symbol.for('opentelemetry.js.api.<major>')]`, shared by every copy of the API
// of that major. That key is the API's internals, so it is read only here, after checking that the
// installed API is of the major it names; when it is not (or its version cannot be read), this
// says so once on stderr and the API is loaded at once, as if an app had registered something.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { seamMessages } from '../messages/seam-messages.js';

export type OtelApi = typeof import('@opentelemetry/api');

/** The API major whose global key this reads. */
const MAJOR = 1;
const GLOBAL_KEY = Symbol.for(`opentelemetry.js.api.${MAJOR}`);

const require = createRequire(import.meta.url);

/** What is not as this seam expects of the installed API (undefined when all is). */
function problemOf(): string | undefined {
  try {
    // The API's `exports` do not list its package.json: it is read beside its entry (build/src/index.js).
    const file = join(dirname(require.resolve('@opentelemetry/api')), '..', '..', 'package.json');
    const version = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    if (typeof version !== 'string' || !version.startsWith(`${MAJOR}.`)) return `@opentelemetry/api is ${String(version)}`;
  } catch (error) {
    return `reading @opentelemetry/api's version throws ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

/** The API's global registration, when an app registered anything (any copy of the API of this major). */
function registration(): Record<string, unknown> | undefined {
  const global = (globalThis as Record<symbol, unknown>)[GLOBAL_KEY];
  return typeof global === 'object' && global !== null ? (global as Record<string, unknown>) : undefined;
}

/** The API once loaded; null when it could not be (telemetry is then off). */
let api: OtelApi | null | undefined;
/** Whether the global key can be trusted; undefined until first asked. */
let keyChecked: boolean | undefined;
/** Set in a Worker: the API is imported from the bundle (its modules are no files to require), see `otelApiImported`. */
let importing: Promise<void> | undefined | false;

/**
 * `@opentelemetry/api`, loaded the first time an app has registered something with it, and from
 * then on; undefined while nothing is registered (one global lookup, nothing loaded), and when
 * the API cannot be loaded (said once on stderr).
 */
export function otelApi(): OtelApi | undefined {
  if (api !== undefined) return api ?? undefined;
  if (importing !== undefined) return undefined;
  if (keyChecked === undefined) {
    const problem = problemOf();
    if (problem) process.stderr.write(seamMessages.otelKeyUnchecked(problem));
    keyChecked = problem === undefined;
  }
  if (keyChecked && !registration()) return undefined;
  try {
    api = require('@opentelemetry/api') as OtelApi;
  } catch (error) {
    process.stderr.write(seamMessages.otelApiMissing(firstLine(error)));
    api = null;
  }
  return api ?? undefined;
}

/**
 * Whether the app may have registered something under `entry` (`'trace'`: a tracer provider): false
 * only when the global registration has no such entry, for which the API hands out its no-op
 * (one property read, no API call); true when the key cannot be trusted, so the API is asked.
 */
export function otelRegistered(entry: 'trace'): boolean {
  return keyChecked !== true || registration()?.[entry] !== undefined;
}

/**
 * In a Cloudflare Worker (`serveOnWorkers`), where nothing can be required from disk: the API is
 * imported instead, from the Worker's bundle (`armature build --target workers` puts it there,
 * evaluated only when imported), the first time something is registered. The key is trusted there:
 * the bundle holds the API @armature/core was built against. Returns what to wait for before
 * serving a request while that import is under way (so a registration made before the request, in
 * the Worker's top level or its app factory, loses no span); undefined when there is nothing to wait for.
 */
export function otelApiImported(): Promise<void> | undefined {
  keyChecked = true;
  if (api !== undefined) return undefined;
  if (!registration()) {
    importing ||= false;
    return undefined;
  }
  importing ||= import('@opentelemetry/api').then(
    (loaded) => {
      api = loaded as OtelApi;
    },
    (error: unknown) => {
      process.stderr.write(seamMessages.otelApiMissing(firstLine(error), 'worker'));
      api = null;
    },
  );
  return importing;
}

/** The first line of what a failed load threw (a module-not-found error lists every path it tried). */
function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
