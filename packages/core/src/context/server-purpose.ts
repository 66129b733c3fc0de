// What a transport asks the runtime for when it needs an SDK server: types only, so neither layer
// imports the other.

/**
 * What an SDK server is made for:
 * - `connection`: a 2025-11-25 connection this process alone serves (stdio, in-memory, an HTTP
 *   session without shared state): the request engine serves it, and this process tells it of
 *   catalogue changes;
 * - `shared-session`: a 2025-11-25 HTTP session instances share: the request engine serves it, and
 *   changes reach it through the shared state's bus instead;
 * - `request`: one 2026-07-28 HTTP request: neither.
 */
export type ServerPurpose = 'connection' | 'shared-session' | 'request';
