import { messageOf } from '../messages/call-messages.js';
import type { AppRuntime } from '../runtime/app-runtime.js';
import { type AppState, isShared } from '../state/app-state.js';
import { SessionRelay } from '../transports/sessions/session-relay.js';
import { AppCatalog } from './app-catalog.js';

/** The app's run-time catalogue, and what it shares with the other instances of a shared state. */
export interface AppSharing {
  readonly catalog: AppCatalog;
  /** Sessions served by other instances, with a shared state. */
  readonly relay?: SessionRelay;
  /** Settles once the app listens to its state (at once for the memory state). */
  readonly shared: Promise<void>;
  /** Stops sharing (the relay, the change bus). */
  unshare(): Promise<unknown>;
}

/**
 * The run-time catalogue (enable, disable, show) over the runtime's catalogs; with a shared state
 * (`redisState`), its edits and change notifications go through the state's bus, and sessions are
 * relayed between instances.
 */
export function shareApp(state: AppState, runtime: AppRuntime): AppSharing {
  const changes = runtime.broadcaster;
  const failed = (error: unknown) =>
    process.stderr.write(`[armature] a change notification could not go through the ${state.name} state: ${messageOf(error)}\n`);
  const { tools, prompts, resources, resourceTemplates } = runtime;
  const catalog = new AppCatalog({ tools, prompts, resources, resourceTemplates }, changes, state.catalog, failed, runtime.visibility);
  if (!isShared(state)) return { catalog, shared: Promise.resolve(), unshare: () => Promise.allSettled([changes.unshare()]) };
  const relay = new SessionRelay(state);
  // The kept catalogue edits are read once the state is connected (the bus waits for that).
  const shared = Promise.all([
    relay.start(),
    changes.share(state.bus, (method, uri) => relay.notifySessions(method, uri), failed, catalog.apply),
  ]).then(() => catalog.load());
  // Reported when the app starts listening; never an unhandled rejection before that.
  shared.catch(() => undefined);
  return { catalog, relay, shared, unshare: () => Promise.allSettled([relay.close(), changes.unshare()]) };
}
