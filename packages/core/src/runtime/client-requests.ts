import { createHash } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type Root,
  type Server,
} from '@modelcontextprotocol/server';
import type { ElicitationSchema } from '../context/context.js';
import { ToolError } from '../context/errors.js';
import { ArmatureBuildError } from '../messages/build-error.js';
import { callMessages } from '../messages/call-messages.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { clientQuestion, clientRequest, withTraceContext } from '../observability/request-tracing.js';
import { toElicitationSchema } from '../schema/elicitation-schema.js';
import { describeDto } from '../validation/dto-descriptor.js';
import type { RequestSource } from './request-source.js';

/**
 * Thrown by a `Context` client request on 2026-07-28 when the answer is not known yet: the call
 * ends with an `input_required` result, and the client retries with the answer (multi-round-trip).
 * An implementation detail of `ctx.elicit/sample/roots`: do not catch it.
 */
export class InputRequiredSignal extends Error {
  constructor(
    readonly key: string,
    readonly request: InputRequest,
  ) {
    super('input required (multi-round-trip request, 2026-07-28): the call will be retried with the answer');
    this.name = 'InputRequiredSignal';
  }
}

/** What the signed `requestState` of a 2026-07-28 round carries. */
export interface RoundState {
  /** Answers of earlier rounds, by question key. */
  readonly answers: Record<string, unknown>;
  /** The questions this round asked: the only keys the client may answer next. */
  readonly asked: readonly string[];
  /** Hash of who called, which handler, and with which arguments: the state is valid for that call only. */
  readonly bind: string;
}

export type RequestStateCodecOf = RequestStateCodec<RoundState>;

/**
 * How one request reaches its client for elicitation, sampling and roots. 2025-11-25 sessions send
 * server-to-client requests and wait; 2026-07-28 answers from the signed state of earlier rounds
 * or ends the round with `input_required`. The Context asks; the channel knows the revision.
 */
export interface ClientChannel {
  capabilities(): ClientCapabilities | undefined;
  /** Throws the revision's error for a capability the client did not declare. */
  missing(feature: string, required: ClientCapabilities): never;
  /** `key`: the question's name in a 2026-07-28 `inputRequests` (see `ClientRequestOptions`). */
  elicitForm(
    message: string,
    requestedSchema: ElicitationSchema,
    key?: string,
  ): Promise<{ action: string; content?: Record<string, unknown> }>;
  elicitUrl(message: string, url: string, key?: string): Promise<{ action: 'accept' | 'decline' | 'cancel' }>;
  sample(params: CreateMessageRequestParams, key?: string): Promise<CreateMessageResult>;
  roots(key?: string): Promise<Root[]>;
}

/** 2025-11-25: real server-to-client requests over the session. */
export class SessionChannel implements ClientChannel {
  private nextId = 0;
  constructor(
    private readonly source: RequestSource,
    private readonly server: Server | undefined,
  ) {}

  capabilities(): ClientCapabilities | undefined {
    return this.server?.getClientCapabilities();
  }
  missing(feature: string): never {
    // A tool error the model can read: 2025-11-25 has no error code for this.
    throw new ToolError(callMessages.missingClientCapability(feature));
  }
  // Each request goes in its CLIENT span, the trace context in its `_meta` (see clientRequest).
  async elicitForm(message: string, requestedSchema: ElicitationSchema) {
    // A raw request rather than elicitInput(): the SDK would check the answer against the schema
    // itself and fail with a JSON-RPC error; validating in the Context gives one answer on both revisions.
    const method = 'elicitation/create';
    return (await clientRequest(method, undefined, (_meta) =>
      this.source.send({ method, params: { mode: 'form', message, requestedSchema, ...(_meta ? { _meta } : {}) } }),
    )) as { action: string; content?: Record<string, unknown> };
  }
  async elicitUrl(message: string, url: string) {
    const elicitationId = `${String(this.source.id)}-${this.nextId++}`;
    const result = await clientRequest('elicitation/create', undefined, (_meta) =>
      this.source.elicitInput({ mode: 'url', message, url, elicitationId, ...(_meta ? { _meta } : {}) }),
    );
    return { action: result.action };
  }
  async sample(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return (await clientRequest('sampling/createMessage', params._meta, (_meta) =>
      this.source.requestSampling(_meta ? { ...params, _meta } : params),
    )) as CreateMessageResult;
  }
  async roots(): Promise<Root[]> {
    const method = 'roots/list';
    const answer = await clientRequest(method, undefined, (_meta) => this.source.send(_meta ? { method, params: { _meta } } : { method }));
    return (answer as { roots: Root[] }).roots;
  }
}

/**
 * 2026-07-28: the handler runs again from the top each round. Each client request takes the key
 * its handler named, else the next `armature_<n>`; answered keys come from the signed state (or,
 * for the questions asked last round, from the client's `inputResponses`). Unanswered questions end
 * the round: all those asked before the handler settles (several at once, say through
 * `Promise.all`) go in one `input_required` result.
 */
export class RoundTripChannel implements ClientChannel {
  private answers: Record<string, unknown> | undefined;
  private call?: { caller: AuthInfo | undefined; session: string | undefined; handler: string; args: unknown };
  private nextKey = 0;
  /** The client requests left unanswered in this round, in asking order (kept through a user catch-all). */
  readonly pending: InputRequiredSignal[] = [];

  constructor(
    private readonly source: RequestSource,
    private readonly codec: RequestStateCodecOf | undefined,
  ) {}

  /**
   * Binds the round to one call (the caller, the handler and its arguments) and checks what the
   * client sent back: state issued for another call, answers to questions never asked, and answers
   * without a state are refused (-32602) before the handler runs.
   */
  open(caller: AuthInfo | undefined, session: string | undefined, handler: string, args: unknown): void {
    this.call = { caller, session, handler, args };
    const state = this.source.requestState<Partial<RoundState>>();
    const responses = this.source.inputResponses ?? {};
    const answered = Object.keys(responses);
    if (state === undefined || state === null) {
      if (answered.length > 0) throw invalidState('inputResponses came without the requestState of the round that asked');
      // A first round: nothing to check, and the binding is only worked out if a question is asked.
      this.answers = {};
      return;
    }
    if (typeof state !== 'object' || state.bind !== this.binding() || !Array.isArray(state.asked)) {
      throw invalidState('it was issued for another call (caller, tool or arguments differ)');
    }
    const asked = state.asked;
    const unasked = answered.find((key) => !asked.includes(key));
    if (unasked !== undefined) throw invalidState(`inputResponses answers "${unasked}", which this call did not ask`);
    this.answers = { ...state.answers, ...responses };
  }

  /** Hash of the caller, the handler and its arguments (key order ignored). */
  private binding(): string {
    const { caller, session, handler, args } = this.call ?? {};
    const sub = String((caller?.extra as { sub?: unknown } | undefined)?.sub ?? '');
    return createHash('sha256')
      .update(`${caller?.clientId ?? ''}\u0000${sub}\u0000${session ?? ''}\u0000${handler ?? ''}\u0000${canonicalJson(args)}`)
      .digest('base64url');
  }

  capabilities(): ClientCapabilities | undefined {
    return this.source.envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities;
  }
  missing(feature: string, required: ClientCapabilities): never {
    // 2026-07-28 defines -32021 for this.
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: required }, callMessages.missingClientCapability(feature));
  }

  // In its CLIENT span; a question asked carries that span's trace context in its `_meta`.
  private answerOf(request: InputRequest, named: string | undefined): ReturnType<typeof inputResponse> {
    return clientQuestion(request.method, () => {
      const answers = this.answers ?? {};
      const key = named ?? `armature_${this.nextKey++}`;
      if (!(key in answers)) {
        const params = request.params as Record<string, unknown> | undefined;
        const _meta = withTraceContext(params?._meta as Record<string, unknown> | undefined);
        const signal = new InputRequiredSignal(key, _meta ? ({ ...request, params: { ...params, _meta } } as InputRequest) : request);
        this.pending.push(signal);
        throw signal;
      }
      return inputResponse(answers, key);
    });
  }

  async elicitForm(message: string, requestedSchema: ElicitationSchema, key?: string) {
    const view = this.answerOf(inputRequired.elicit({ mode: 'form', message, requestedSchema }), key);
    if (view.kind !== 'elicit') throw new ToolError(callMessages.wrongAnswerKind('elicitation', view.kind));
    return { action: view.action as string, content: view.content as Record<string, unknown> | undefined };
  }
  async elicitUrl(message: string, url: string, key?: string) {
    const view = this.answerOf(inputRequired.elicitUrl({ message, url }), key);
    if (view.kind !== 'elicit') throw new ToolError(callMessages.wrongAnswerKind('URL elicitation', view.kind));
    return { action: view.action };
  }
  async sample(params: CreateMessageRequestParams, key?: string): Promise<CreateMessageResult> {
    const view = this.answerOf(inputRequired.createMessage(params), key);
    if (view.kind !== 'sampling') throw new ToolError(callMessages.wrongAnswerKind('sampling request', view.kind));
    return view.result as CreateMessageResult;
  }
  async roots(key?: string): Promise<Root[]> {
    const view = this.answerOf(inputRequired.listRoots(), key);
    if (view.kind !== 'roots') throw new ToolError(callMessages.wrongAnswerKind('roots request', view.kind));
    return view.roots;
  }

  /** The `input_required` result for the pending questions, carrying the answers so far (signed). */
  async toInputRequiredResult(): Promise<InputRequiredResult> {
    const state: RoundState = { answers: this.answers ?? {}, asked: this.pending.map((signal) => signal.key), bind: this.binding() };
    const requestState = this.codec ? await this.codec.mint(state, this.source.sdkContext()) : undefined;
    const inputRequests = Object.fromEntries(this.pending.map((signal) => [signal.key, signal.request]));
    return inputRequired({ inputRequests, ...(requestState ? { requestState } : {}) });
  }
}

function invalidState(why: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid requestState: ${why}. Start the call again without requestState.`);
}

/** JSON with object keys sorted, so equal arguments hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

const forms = new WeakMap<Constructor, ElicitationSchema>();

/**
 * The form a DTO asks for in `ctx.elicit(message, Dto)`, described once per class. A DTO that
 * cannot be a form (nested DTOs, unsupported types, no validators) fails the call with an
 * `ArmatureBuildError` naming the class, every problem and its fix.
 */
export function elicitationFormOf(dto: Constructor): ElicitationSchema {
  const known = forms.get(dto);
  if (known) return known;
  const descriptor = describeDto(dto);
  const { schema, problems } = toElicitationSchema(dto, descriptor.schema);
  const all = [...descriptor.problems.map((p) => ({ where: dto.name, ...p })), ...problems];
  // A programming error, not the model's: reported to onError like any unexpected one.
  if (all.length > 0) throw new ArmatureBuildError(all, `${dto.name} cannot be used for elicitation`, 'in the DTO');
  forms.set(dto, schema);
  return schema;
}
