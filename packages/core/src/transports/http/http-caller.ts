import type { AuthInfo } from '@modelcontextprotocol/server';

/** Who is calling, decided from the request's headers before its body is read. */
export interface Caller {
  /** The verified principal (with auth on), its token redacted. */
  readonly principal?: AuthInfo;
  /** The session owner key: client id and subject (with auth on). */
  readonly owner?: string;
  /** The key per-client caps count against: the owner with auth on, else the peer address. */
  readonly client?: string;
  /** The client's address (the peer's, or what `trustProxy` trusts), for rate limits. */
  readonly address?: string;
}
