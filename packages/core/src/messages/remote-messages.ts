/** What callers of a remote server's tools, prompts and resources read when the remote fails them: written here once. */
export const remoteMessages = {
  unavailable(part: string, remote: string, reason: string): string {
    return `${part}: the remote server ${remote} is unavailable (${reason}). It is reconnected by itself: try again shortly`;
  },
  lostDuringCall(part: string, remote: string): string {
    return `${part}: the remote server ${remote} went away during the call, which may or may not have taken effect there. It is reconnected by itself: check before trying again`;
  },
  timedOut(part: string, remote: string, timeoutMs: number): string {
    return `${part}: the remote server ${remote} did not answer within ${timeoutMs} ms`;
  },
  tooLong(part: string, remote: string, maxCallMs: number): string {
    return `${part}: the remote server ${remote} did not finish the call within ${maxCallMs} ms (its maxCallMs) and it was cancelled there`;
  },
  /** Told to the remote server: why its request was cancelled. */
  callerCancelled(): string {
    return 'the caller cancelled the call';
  },
  /** Told to the remote server: why its request was cancelled. */
  callTimeLimit(maxCallMs: number): string {
    return `the call reached the gateway's time limit of ${maxCallMs} ms`;
  },
  tooManyRounds(part: string, rounds: number): string {
    return `${part}: the remote server asked for input ${rounds} times in one call; stopped there`;
  },
  /** Told to the remote server: a request of its own the proxy cannot hand to any client. */
  noCaller(inFlight: number): string {
    return inFlight === 0
      ? 'no call of this server is in progress, so there is no client to ask'
      : `${inFlight} calls of this server are in progress over stdio, which does not say which one asks; serve 2026-07-28 (or Streamable HTTP) to ask during concurrent calls`;
  },
  /** Told to the remote server (and, on 2026-07-28, to the caller): a URL elicitation not passed on. */
  unsafeUrl(problem: string): string {
    return `the URL to open was not passed on to the client: ${problem}; only https: URLs (or http: to this machine) without a user name or password are`;
  },
  /** Told to the caller: a 2026-07-28 remote asked its client to open a URL that is not passed on. */
  unsafeUrlAsked(part: string, problem: string): string {
    return `${part}: the remote server asked the client to open a URL, which was not passed on: ${problem}; only https: URLs (or http: to this machine) without a user name or password are`;
  },
  /** Told to the caller: the remote's HTTP answer to a forwarded call could not be read (`problem` says why). */
  badAnswer(part: string, remote: string, problem: string): string {
    return `${part}: the remote server ${remote} gave an answer that is not one: ${problem}. The call may or may not have taken effect there`;
  },
  /** Told to the caller: the remote refused the request over HTTP (`detail` is the client's account of it). */
  httpRefused(part: string, remote: string, status: number, detail: string): string {
    return `${part}: the remote server ${remote} refused the call with HTTP ${status}: ${detail}`;
  },
  /** Why a remote's answer is not one (the `problem` of `badAnswer`). */
  answerProblems: {
    contentType: (type: string | undefined) =>
      `its Content-Type is ${type === undefined ? 'missing' : JSON.stringify(type)}, where application/json or text/event-stream was expected`,
    tooLarge: (maxBytes: number) => `it is larger than ${maxBytes} bytes, the most the gateway reads`,
    notJson: () => 'its body is not JSON',
    notResponse: () => 'it is not the JSON-RPC response to the request sent',
    ended: () => 'its event stream ended before the response to the request',
  },
  /** Told to the remote server: a request method the proxy does not relay. */
  notRelayed(method: string): string {
    return `${method} is not relayed to the client`;
  },
};
