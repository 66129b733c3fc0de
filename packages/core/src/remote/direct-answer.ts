import type { IncomingMessage } from 'node:http';
import type { createParser } from 'eventsource-parser';
import { remoteMessages } from '../messages/remote-messages.js';
import type { ClientCodec } from '../seams/client-codec.js';
import type { ClientSdk } from './client-sdk.js';

type Json = Record<string, unknown>;

/** The most bytes of one answer (characters of one event of a stream) the gateway reads. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A remote's answer that is not one: what is wrong with it is `problem`, for the caller's message. */
export class NotAnAnswerError extends Error {
  readonly problem: string;
  constructor(...[kind, ...args]: { [K in keyof Problems]: [K, ...Parameters<Problems[K]>] }[keyof Problems]) {
    const problem = (remoteMessages.answerProblems[kind] as (...args: unknown[]) => string)(...args);
    super(problem);
    this.name = 'NotAnAnswerError';
    this.problem = problem;
  }
}
type Problems = typeof remoteMessages.answerProblems;

/** What an answer is read with: the client SDK, its codec, and the event stream parser (loaded with the direct path). */
export interface AnswerTools {
  readonly sdk: ClientSdk;
  readonly codec: ClientCodec;
  readonly createParser: typeof createParser;
}

/** What the remote's notifications during the call go to. */
export interface AnswerListener {
  progress(progress: { progress: number; total?: number; message?: string }): void;
  log(params: Json): void;
}

/**
 * Reads the answer to one tools/call (request `id`) of the direct path, as the official client
 * reads it on 2026-07-28: a JSON-RPC response, in a JSON body or among the events of a stream
 * whose progress and log notifications go to `listener`; its result decoded and validated by the
 * client's own codec, its error rebuilt as the SDK's ProtocolError.
 */
export class AnswerReader {
  constructor(
    private readonly id: number,
    private readonly tools: AnswerTools,
    private readonly listener: AnswerListener,
  ) {}

  /** The result in a JSON body. */
  fromJson(text: string): Json {
    const result = this.settle(parsed(text));
    if (result === undefined) throw new NotAnAnswerError('notResponse');
    return result;
  }

  /** The JSON-RPC error for this request in a refusal's body (a 400), if it holds one. */
  errorIn(text: string): Error | undefined {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(message) || message.id !== this.id || !isObject(message.error)) return undefined;
    try {
      this.settle(message);
    } catch (error) {
      if (error instanceof this.tools.sdk.ProtocolError) return error;
    }
    return undefined;
  }

  /** The result among the events of a stream: notifications before it are handed to the listener. */
  fromStream(res: IncomingMessage): Promise<Json> {
    return new Promise((resolve, reject) => {
      let done = false;
      const end = (error: unknown, result?: Json) => {
        if (done) return;
        done = true;
        if (error === undefined) resolve(result as Json);
        else {
          res.destroy();
          reject(error);
        }
      };
      const parser = this.tools.createParser({
        maxBufferSize: MAX_ANSWER_BYTES,
        onEvent: (event) => {
          if (done || (event.event !== undefined && event.event !== 'message')) return;
          try {
            const result = this.settle(parsed(event.data));
            if (result !== undefined) end(undefined, result);
          } catch (error) {
            end(error);
          }
        },
        onError: (error) => {
          if (error.type === 'max-buffer-size-exceeded') end(new NotAnAnswerError('tooLarge', MAX_ANSWER_BYTES));
        },
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!done) parser.feed(chunk);
      });
      res.on('end', () => end(new NotAnAnswerError('ended')));
      res.on('error', (error) => end(error));
      res.on('close', () => end(new NotAnAnswerError('ended')));
    });
  }

  /**
   * What one message of the answer means: the result when it is this request's response (its
   * error thrown), undefined when it is a notification (handed to the listener).
   */
  private settle(message: unknown): Json | undefined {
    if (!isObject(message) || message.jsonrpc !== '2.0') throw new NotAnAnswerError('notResponse');
    if (message.id === undefined && typeof message.method === 'string') {
      this.notified(message.method, isObject(message.params) ? message.params : {});
      return undefined;
    }
    if (message.id !== this.id) throw new NotAnAnswerError('notResponse');
    const { error } = message;
    if (isObject(error)) {
      if (!Number.isInteger(error.code) || typeof error.message !== 'string') throw new NotAnAnswerError('notResponse');
      throw this.tools.sdk.ProtocolError.fromError(error.code as number, error.message, error.data);
    }
    if (!('result' in message)) throw new NotAnAnswerError('notResponse');
    return this.decoded(message.result);
  }

  private notified(method: string, params: Json): void {
    if (method === 'notifications/progress') {
      const { progressToken, progress, total, message } = params;
      if (progressToken !== this.id || typeof progress !== 'number') return;
      this.listener.progress({
        progress,
        ...(typeof total === 'number' ? { total } : {}),
        ...(typeof message === 'string' ? { message } : {}),
      });
    } else if (method === 'notifications/message') this.listener.log(params);
  }

  /** A tools/call result as the official client hands it over (`allowInputRequired`): decoded and validated by its codec. */
  private decoded(raw: unknown): Json {
    const { sdk, codec } = this.tools;
    const decoded = codec.decodeResult('tools/call', raw);
    if (decoded.kind === 'invalid') throw decoded.error;
    if (decoded.kind === 'input_required') {
      const { inputRequests, requestState, _meta: meta } = decoded;
      return {
        resultType: 'input_required',
        inputRequests,
        ...(requestState !== undefined ? { requestState } : {}),
        ...(meta !== undefined ? { _meta: meta } : {}),
      };
    }
    const checked = codec.validateResult('tools/call', decoded.result);
    if (checked.ok) return checked.value as Json;
    throw new sdk.SdkError(sdk.SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${checked.message ?? checked.reason}`);
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new NotAnAnswerError('notJson');
  }
}
