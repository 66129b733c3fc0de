import type { AuthInfo } from '@modelcontextprotocol/server';
import type { NotificationValve } from '../../context/notification-valve.js';
import type { FrontedMessageExtra } from '../../engine/session-front.js';
import type { StreamControls } from '../sessions/session-transport.js';

/**
 * The `extra` a 2025-11-25 session request answered on its own node:http response is handed on
 * with: `authInfo`, `request` (the web Request, made when first read), `notifications`, and
 * `closeSSEStream` and `closeStandaloneSSEStream`, which `SessionTransport.serveOn` sets on a
 * primed stream.
 *
 * `request` is an own getter from one shared descriptor, not an object literal's `get request()`:
 * V8 gives each getter a literal defines an accessor pair of its own, always in the old generation,
 * and that pair keeps the getter's closure, and the request, response and stream it reaches, alive
 * through the scavenges until the next mark-compact, which promote them (about 3.8 KB of every
 * call, the old generation rising by tens of MB between mark-compacts).
 */
export class SessionRequestExtra implements FrontedMessageExtra, StreamControls {
  // Declared only, each set in the constructor: in the order the object literal it replaces had them.
  declare readonly authInfo: AuthInfo | undefined;
  declare readonly request: Request;
  declare readonly notifications: () => NotificationValve;
  declare closeSSEStream: (() => void) | undefined;
  declare closeStandaloneSSEStream: (() => void) | undefined;
  readonly #requestOf: () => Request;

  constructor(authInfo: AuthInfo | undefined, requestOf: () => Request, notifications: () => NotificationValve) {
    this.#requestOf = requestOf;
    (this as { authInfo?: AuthInfo }).authInfo = authInfo;
    Object.defineProperty(this, 'request', REQUEST);
    (this as { notifications?: () => NotificationValve }).notifications = notifications;
    this.closeSSEStream = undefined;
    this.closeStandaloneSSEStream = undefined;
  }

  static requestOf(extra: SessionRequestExtra): Request {
    return extra.#requestOf();
  }
}

const REQUEST: PropertyDescriptor = {
  get(this: SessionRequestExtra) {
    return SessionRequestExtra.requestOf(this);
  },
  enumerable: true,
  configurable: true,
};
