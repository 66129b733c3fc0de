import type { McpServer as SdkMcpServer, Transport } from '@modelcontextprotocol/server';
import type { ServerPurpose } from '../context/server-purpose.js';
import { messageOf } from '../messages/call-messages.js';
import { engineMessages } from '../messages/seam-messages.js';
import type { AppRuntime } from '../runtime/app-runtime.js';
import { sdkInternals } from '../seams/sdk-internals.js';
import { ModernFront } from './modern-front.js';
import { createSdkServer } from './sdk-server.js';

/**
 * How an app's requests reach its runtime: SDK servers for the wires to connect, with the
 * request engine in front of them where it serves.
 */
export class AppEngine {
  /** The 2026-07-28 request engine of the app's HTTP endpoints, once bound (see `bindModern`). */
  modern?: ModernFront;
  private modernBinding?: Promise<void>;

  /** @param requestEngine whether the engine answers the requests it accepts (else the SDK answers all). */
  constructor(
    private readonly runtime: AppRuntime,
    private readonly requestEngine = true,
  ) {}

  /** A fresh SDK server for a connection, a shared session, or one 2026-07-28 request. */
  createServer(purpose: ServerPurpose = 'connection', wire?: Transport): SdkMcpServer {
    return createSdkServer(this.runtime, purpose, { wire, engine: this.requestEngine });
  }

  /**
   * Binds the 2026-07-28 request engine the app's HTTP endpoints share (once; later calls wait for the
   * same binding). Until it is bound, and when it cannot be, every request goes through the SDK.
   */
  bindModern(): Promise<void> {
    this.modernBinding ??= this.createModernDirect().then(
      (modern) => {
        this.modern = modern;
      },
      (error) => {
        process.stderr.write(engineMessages.modernEngineOff(messageOf(error)));
      },
    );
    return this.modernBinding;
  }

  /**
   * The 2026-07-28 request engine: one SDK server, made and bound once, whose handlers serve the
   * frequent requests without a server per request. Resolves once bound; undefined when the fast
   * path is off (by option, or because the SDK seam is).
   */
  async createModernDirect(): Promise<ModernFront | undefined> {
    const sdk = this.requestEngine ? sdkInternals() : undefined;
    if (!sdk) return undefined;
    const modern = new ModernFront(sdk, this.runtime.stats);
    await modern.bind(createSdkServer(this.runtime, 'request', { modern }).server);
    return modern;
  }
}
