import type { AppState } from './app-state.js';

/**
 * One process's state (the default): sessions, events and change notifications stay in this
 * process, exactly as without a `state` option. Use a shared state to run several instances.
 */
export function memoryState(): AppState {
  return { name: 'memory', shared: false, close: async () => undefined };
}
