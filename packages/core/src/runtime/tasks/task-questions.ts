import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type InputRequest,
  inputRequired,
  inputResponse,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Root,
} from '@modelcontextprotocol/server';
import type { ElicitationSchema } from '../../context/context.js';
import { ToolError } from '../../context/errors.js';
import { callMessages } from '../../messages/call-messages.js';
import { clientRequest } from '../../observability/request-tracing.js';
import type { TaskStore } from '../../state/task-store.js';
import type { ClientChannel } from '../client-requests.js';
import type { RequestSource } from '../request-source.js';

/** What the client answered to one question (the SDK's reading of an `inputResponses` entry). */
type AnswerView = ReturnType<typeof inputResponse>;

/** The answer when it is of the `kind` asked; else the call ends with a tool error naming both. */
function answerOfKind<K extends AnswerView['kind']>(view: AnswerView, kind: K, what: string): Extract<AnswerView, { kind: K }> {
  if (view.kind !== kind) throw new ToolError(callMessages.wrongAnswerKind(what, view.kind));
  return view as Extract<AnswerView, { kind: K }>;
}

/**
 * How a task of the 2026-07-28 tasks extension asks its client (`ctx.elicit`, `ctx.elicitUrl`,
 * `ctx.sample`, `ctx.roots`): the question goes into the task's `inputRequests` in the store under
 * a new random key, and the task is `input_required` until every question it waits on is answered.
 * The answer comes back through `tasks/update` on any instance, into the store, whose change
 * notice wakes this one. A question not answered within `timeoutMs` fails the call. `source` is
 * the request that created the task (its client capabilities); `signal` is the task's.
 */
export class TaskQuestions implements ClientChannel {
  constructor(
    private readonly source: RequestSource,
    private readonly signal: AbortSignal,
    private readonly store: TaskStore,
    private readonly taskId: string,
    private readonly timeoutMs: number,
  ) {}

  capabilities(): ClientCapabilities | undefined {
    return this.source.envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  }
  missing(feature: string, required: ClientCapabilities): never {
    // 2026-07-28 defines -32021 for this: the task fails with it.
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: required }, callMessages.missingClientCapability(feature));
  }
  async elicitForm(message: string, requestedSchema: ElicitationSchema) {
    const view = answerOfKind(
      await this.answerOf(inputRequired.elicit({ mode: 'form', message, requestedSchema })),
      'elicit',
      'elicitation',
    );
    return { action: view.action as string, content: view.content as Record<string, unknown> | undefined };
  }
  async elicitUrl(message: string, url: string) {
    return { action: answerOfKind(await this.answerOf(inputRequired.elicitUrl({ message, url })), 'elicit', 'URL elicitation').action };
  }
  async sample(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return answerOfKind(await this.answerOf(inputRequired.createMessage(params)), 'sampling', 'sampling request')
      .result as CreateMessageResult;
  }
  async roots(): Promise<Root[]> {
    return answerOfKind(await this.answerOf(inputRequired.listRoots()), 'roots', 'roots request').roots;
  }

  // In its CLIENT span, which lasts until the answer arrives; the question carries its trace context.
  private answerOf(request: InputRequest): Promise<AnswerView> {
    return clientRequest(request.method, request.params?._meta as Record<string, unknown> | undefined, (_meta) =>
      this.asked(_meta ? ({ ...request, params: { ...request.params, _meta } } as InputRequest) : request),
    );
  }

  private async asked(request: InputRequest): Promise<AnswerView> {
    const key = randomUUID();
    const { signal } = this;
    signal.throwIfAborted();
    let stop: () => void = () => undefined;
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ProtocolError(ProtocolErrorCode.InternalError, callMessages.taskQuestionTimedOut(this.timeoutMs))),
        this.timeoutMs,
      );
      timer.unref();
      const aborted = () => reject(signal.reason);
      const unwatch = this.store.watch(this.taskId, (record) => {
        if (record.inputResponses && Object.hasOwn(record.inputResponses, key)) resolve(record.inputResponses as Record<string, unknown>);
      });
      signal.addEventListener('abort', aborted, { once: true });
      stop = () => {
        clearTimeout(timer);
        unwatch();
        signal.removeEventListener('abort', aborted);
      };
    });
    answered.catch(() => undefined); // awaited below; a rejection meanwhile is not unhandled
    try {
      // Watching first: an answer that comes at once is not missed.
      await this.store.update(this.taskId, { status: 'input_required', ask: { [key]: request } });
      return inputResponse(await answered, key);
    } finally {
      stop();
      // Taken, timed out or aborted: the question is withdrawn (a no-op once the task is terminal).
      await this.store.update(this.taskId, { settle: [key] }).catch(() => undefined);
    }
  }
}
