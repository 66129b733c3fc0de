import { UriTemplate } from '@modelcontextprotocol/server';
import type { Guard, Interceptor, Provided } from '../context/execution-context.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { PartNaming, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from './definitions.js';
import { deepFreeze } from './handler-build.js';
import { RemoteServerRef } from './remote-server.js';

/** What a mounted part adds to its handlers, after the app's own and before each class's. */
export interface MountOptions {
  /** Guards for every handler of the part: after the app's `guards`, before class and method guards. */
  guards?: Provided<Guard>[];
  /** Interceptors around every call of the part: inside the app's, outside class and method interceptors. */
  interceptors?: Provided<Interceptor>[];
  /** Tags of every handler of the part, before each handler's own (for `showFor`/`hideFor` and `hiddenTags`). */
  tags?: string[];
}

/**
 * Server classes served under a prefix: tool and prompt names become `prefix_name` (letters,
 * digits, `_` only: the characters every MCP client and model API accepts in a tool name) and
 * resource URIs `scheme://prefix/rest` (the scheme is kept, so `ui://` and `file://` keep meaning
 * what they say). Made by `mount()`.
 */
export class MountedPart {
  /** The server classes of the part (none for a remote server). */
  readonly servers: readonly Constructor[];
  /** The remote MCP server the part serves, when it is one (`remoteServer()`). */
  readonly remote?: RemoteServerRef;

  constructor(
    readonly prefix: string,
    servers: Constructor | readonly Constructor[] | RemoteServerRef,
    readonly options: Readonly<MountOptions>,
  ) {
    if (servers instanceof RemoteServerRef) this.remote = servers;
    this.servers = Object.freeze(
      servers instanceof RemoteServerRef ? [] : Array.isArray(servers) ? [...servers] : [servers as Constructor],
    );
  }

  /** Where the part is declared, for messages. */
  get where(): string {
    return `mount('${this.prefix}')`;
  }

  /** The tool or prompt name `name` is served under. */
  name(name: string): string {
    return `${this.prefix}_${name}`;
  }

  /**
   * The URI (or URI template) `uri` is served under: the prefix becomes the authority's first
   * label (`config://app` -> `config://weather/app`, `file:///a` -> `file://weather/a`), or the
   * path's first segment for a URI without one (`urn:x` -> `urn:weather/x`). Undefined for a URI
   * that does not start with a scheme (e.g. a template whose scheme is a variable).
   */
  uri(uri: string): string | undefined {
    const parts = /^([A-Za-z][A-Za-z0-9+.-]*:)(\/\/)?([\s\S]*)$/.exec(uri);
    if (!parts) return undefined;
    const [, scheme, slashes, rest = ''] = parts;
    if (!slashes) return `${scheme}${this.prefix}/${rest}`;
    return `${scheme}//${this.prefix}${rest.startsWith('/') ? '' : '/'}${rest}`;
  }
}

/**
 * One entry of `createMcpApp([...])`: a server class, a part mounted under a prefix, or a remote
 * server served under its own names (a gateway in front of one server).
 */
export type AppPart = Constructor | MountedPart | RemoteServerRef;

/** A prefix is 1-64 letters, digits and `-`: valid in a tool name and as a URI's host label or path segment. */
export const PREFIX_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

/**
 * Serves `servers` under `prefix`, each keeping its own guards, interceptors and DI, with the
 * part's `options` around them; or a remote MCP server (`remoteServer()`), whose tools, prompts
 * and resources are fetched when the app starts and kept up to date.
 *
 * @example
 * ```ts
 * createMcpApp([
 *   mount('weather', WeatherServer),
 *   mount('billing', [BillingServer, InvoicesServer], { guards: [BillingGuard] }),
 *   mount('files', remoteServer({ command: 'node', args: ['files-server.js'] })),
 * ]);
 * // tools: weather_forecast, billing_charge, ...; resources: config://weather/app, ...
 * ```
 */
export function mount(
  prefix: string,
  servers: Constructor | readonly Constructor[] | RemoteServerRef,
  options: MountOptions = {},
): MountedPart {
  return new MountedPart(prefix, servers, Object.freeze({ ...options }));
}

/** How a remote server given as is (not mounted) is served: under its own names and URIs. */
export function unprefixed(remote: RemoteServerRef): PartNaming {
  return {
    prefix: '',
    where: `remoteServer('${remote.label}')`,
    name: (name) => name,
    uri: (uri) => uri,
  };
}

/** The server classes of `parts`, each with the part it is mounted in (none for a class given as is). */
export function classesOf(parts: readonly AppPart[]): { serverClass: Constructor; part?: MountedPart }[] {
  return parts.flatMap((part) =>
    part instanceof MountedPart
      ? part.servers.map((serverClass) => ({ serverClass, part }))
      : part instanceof RemoteServerRef
        ? []
        : [{ serverClass: part }],
  );
}

/**
 * A tool or prompt as served in `part` (an extension's setup, run later, sees it renamed, and
 * moves the URIs its options name with the part's resources: `host.tool(name).servedUri`).
 */
export function renamed<D extends ToolDefinition | PromptDefinition>(definition: D, part: MountedPart): D {
  const name = part.name(definition.name);
  const descriptor: Record<string, unknown> = { ...definition.descriptor, name };
  const served: D = {
    ...definition,
    name,
    descriptor,
    plan: Object.freeze({ ...definition.plan, name }),
  };
  deepFreeze(descriptor);
  return Object.freeze(served);
}

/** A resource as served in `part` (its URI prefixed), or undefined when its URI has no scheme. */
export function resourceIn(definition: ResourceDefinition, part: MountedPart): ResourceDefinition | undefined {
  const uri = part.uri(definition.uri);
  if (uri === undefined) return undefined;
  return Object.freeze({
    ...definition,
    uri,
    descriptor: deepFreeze({ ...definition.descriptor, uri }),
    plan: Object.freeze({ ...definition.plan, name: uri }),
  });
}

/** A resource template as served in `part` (its pattern and name prefixed), or undefined when it has no literal scheme. */
export function templateIn(definition: ResourceTemplateDefinition, part: MountedPart): ResourceTemplateDefinition | undefined {
  const uriTemplate = part.uri(definition.descriptor.uriTemplate);
  if (uriTemplate === undefined) return undefined;
  // Named like a tool: the run-time catalogue (`app.resourceTemplates`) keys templates by name.
  const name = part.name(definition.name);
  return Object.freeze({
    ...definition,
    name,
    descriptor: deepFreeze({ ...definition.descriptor, uriTemplate, name }),
    template: new UriTemplate(uriTemplate),
    plan: Object.freeze({ ...definition.plan, name }),
  });
}
