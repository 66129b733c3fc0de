import { createHash } from 'node:crypto';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { RequestHead } from '../../auth/bearer-auth.js';
import { MODERN_REVISION } from '../../context/revisions.js';
import { ArmatureBuildError, type BuildProblem } from '../../messages/build-error.js';
import { MESSAGES, problem, SERVER_CARD_RULES as RULE } from '../../messages/message-catalog.js';

/** The Server Card schema the SEP-2127 draft names (experimental-ext-server-card, July 2026). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const MEDIA_TYPE = 'application/mcp-server-card+json';
/** The draft reserves `GET <streamable-http-url>/server-card`. */
export const SERVER_CARD_SUFFIX = '/server-card';

/**
 * What a server card says beyond `@McpServer` (which gives its version, title and icons): the
 * fields of package.json the registry's server.json also carries.
 */
export interface ServerCardOptions {
  /** Reverse-DNS name with one slash, e.g. `io.github.acme/weather`: package.json's `mcpName`. */
  name: string;
  /** What the server does, 1 to 100 characters: package.json's `description`. */
  description: string;
  /** The server's homepage or documentation (package.json's `homepage`). */
  websiteUrl?: string;
  /** Where its source is, e.g. `{ url: 'https://github.com/acme/weather', source: 'github' }`. */
  repository?: { url: string; source: string; subfolder?: string };
  /**
   * The endpoint's public URL (`https://mcp.example.com/mcp`): the card's `remotes` entry, with the
   * protocol revisions served. Without it the card names the server but not where to connect.
   */
  url?: string;
}

/** What `@McpServer` gives a card. */
export interface ServerCardInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly icons?: readonly object[];
}

type Json = Record<string, unknown>;

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const VERSION_RANGE = /^[\^~<>=]|\.(x|\*)(\.|$)|\s/;

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Each field the draft's schema would refuse: [field, value as shown, what it must be]. */
function cardFaults(info: ServerCardInfo, options: ServerCardOptions): [string, unknown, string][] {
  const faults: [string, unknown, string][] = [];
  const text = (value: unknown, min: number, max: number) => typeof value === 'string' && value.length >= min && value.length <= max;
  if (!(text(options.name, 3, 200) && NAME.test(options.name))) faults.push(['name', options.name, RULE.name]);
  if (!text(options.description, 1, 100)) faults.push(['description', options.description, RULE.description]);
  if (!text(info.version, 1, 255) || VERSION_RANGE.test(info.version)) faults.push(['version (@McpServer)', info.version, RULE.version]);
  if (info.title !== undefined && !text(info.title, 1, 100)) faults.push(['title (@McpServer)', info.title, RULE.title]);
  if (options.websiteUrl !== undefined && !isHttpUrl(options.websiteUrl)) faults.push(['websiteUrl', options.websiteUrl, RULE.url]);
  if (options.url !== undefined && !isHttpUrl(options.url)) faults.push(['url', options.url, RULE.endpoint]);
  const repository = options.repository;
  if (repository !== undefined && !(isHttpUrl(repository.url) && text(repository.source, 1, 100)))
    faults.push(['repository', repository, RULE.repository]);
  return faults;
}

/**
 * The server card of the SEP-2127 draft: identity, description and where to connect, never the
 * tools, resources or prompts (the draft leaves those to the list requests, where guards and
 * visibility apply). Throws every field the draft refuses at once (ARM187).
 */
export function serverCardOf(info: ServerCardInfo, options: ServerCardOptions, where = 'serverCard'): Json {
  const problems: BuildProblem[] = cardFaults(info, options).map(([field, value, requirement]) =>
    problem(MESSAGES.serverCardInvalid, where, field, JSON.stringify(value) ?? String(value), requirement),
  );
  if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot write the server card', 'in its fields');
  const { repository } = options;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: options.name,
    version: info.version,
    description: options.description,
    ...(info.title ? { title: info.title } : {}),
    ...(options.websiteUrl ? { websiteUrl: options.websiteUrl } : {}),
    ...(repository
      ? {
          repository: {
            url: repository.url,
            source: repository.source,
            ...(repository.subfolder ? { subfolder: repository.subfolder } : {}),
          },
        }
      : {}),
    ...(info.icons?.length ? { icons: info.icons } : {}),
    ...(options.url
      ? {
          remotes: [
            { type: 'streamable-http', url: options.url, supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION] },
          ],
        }
      : {}),
  };
}

/** The draft's CORS headers: the card is public and read-only, readable from any page. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/**
 * `GET <endpoint>/server-card`: the card, written once at start-up with its ETag, answered 304 to a
 * client that already holds it. Public discovery data: no bearer token is asked for.
 */
export class ServerCardRoute {
  private readonly body: string;
  private readonly etag: string;

  constructor(card: Json) {
    this.body = JSON.stringify(card);
    this.etag = `"${createHash('sha256').update(this.body).digest('base64url')}"`;
  }

  /** Whether `request` asks for the card (its path ends with the reserved suffix). */
  matches(request: RequestHead): boolean {
    return new URL(request.url).pathname.endsWith(SERVER_CARD_SUFFIX);
  }

  answer(request: RequestHead): Response {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    if (request.method !== 'GET') return new Response(null, { status: 405, headers: { allow: 'GET', ...CORS } });
    const headers = { ...CORS, etag: this.etag, 'cache-control': 'public, max-age=3600' };
    const held = request.headers.get('if-none-match');
    if (held?.split(',').some((tag) => tag.trim() === this.etag || tag.trim() === '*')) return new Response(null, { status: 304, headers });
    return new Response(this.body, { status: 200, headers: { ...headers, 'content-type': MEDIA_TYPE } });
  }
}
