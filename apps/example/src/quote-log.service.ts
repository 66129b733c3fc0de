import { Context, RequestScoped } from '@armature/core';

/**
 * Reports quotes to the client's log. Request-scoped, so each call gets its own instance built
 * with that call's `Context` (a singleton could not inject it: there is no request at start-up).
 */
@RequestScoped()
export class QuoteLog {
  constructor(private readonly ctx: Context) {}

  quoted(lines: number, total: number, currency: string): Promise<void> {
    return this.ctx.log.info(`quote_order: ${lines} line(s), total ${total} ${currency} minor units`, { requestId: this.ctx.requestId });
  }
}
