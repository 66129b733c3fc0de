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
  tooManyRounds(part: string, rounds: number): string {
    return `${part}: the remote server asked for input ${rounds} times in one call; stopped there`;
  },
  /** Told to the remote server: a request of its own the proxy cannot hand to any client. */
  noCaller(inFlight: number): string {
    return inFlight === 0
      ? 'no call of this server is in progress, so there is no client to ask'
      : `${inFlight} calls of this server are in progress over stdio, which does not say which one asks; serve 2026-07-28 (or Streamable HTTP) to ask during concurrent calls`;
  },
  /** Told to the remote server: a request method the proxy does not relay. */
  notRelayed(method: string): string {
    return `${method} is not relayed to the client`;
  },
};
