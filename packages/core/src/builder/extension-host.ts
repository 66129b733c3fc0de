import { type Resource, type ResourceTemplateType, UriTemplate } from '@modelcontextprotocol/server';
import type {
  ExtensionHost,
  ExtensionProblemOptions,
  ExtensionResource,
  ExtensionResourceChange,
  ExtensionResourceTemplate,
  ExtensionTool,
  ExtensionToolChange,
} from '../context/extension.js';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, type MessageDefinition, problem } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { PlanContext } from './build-call-plan.js';
import type {
  CallPlan,
  ExtensionDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolChange,
  ToolDefinition,
} from './definitions.js';
import { extensionClass, planOf, RAW, viewOf } from './extension-plans.js';
import { describe, isJsonObject } from './extension-values.js';
import { deepFreeze } from './handler-build.js';

// An extension's `setup`: the host it is handed, which reads the app's catalog and adds to it
// (resources, templates) or changes what it advertises (a tool's `_meta`, a resource's `_meta`,
// the extension's own capability).

const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** A tool or resource as its class declared it: its decorator's options, and how its part moves URIs. */
export interface Declared {
  readonly options: Readonly<Record<string, unknown>>;
  servedUri(uri: string): string | undefined;
}

/** What the app's classes built, which extensions read, add to and change. */
export interface ExtensionCatalog {
  readonly serverClasses: readonly Constructor[];
  readonly tools: Map<string, ToolDefinition>;
  readonly resources: Map<string, ResourceDefinition>;
  readonly resourceTemplates: Map<string, ResourceTemplateDefinition>;
  readonly prompts: ReadonlyMap<string, unknown>;
  /** What the classes declared, by `tool <name>` and `resource <uri>` as served. */
  readonly declared: ReadonlyMap<string, Declared>;
}

const NOTHING_DECLARED: Declared = Object.freeze({ options: Object.freeze({}), servedUri: (uri: string) => uri });

/**
 * Runs an extension's `setup` with a host on `catalog`; a throw is reported, not raised. Returns
 * the definition with the settings it advertises (changed by `host.advertise`).
 */
export function setUp(
  extension: ExtensionDefinition,
  planning: PlanContext,
  catalog: ExtensionCatalog,
  problems: BuildProblem[],
): ExtensionDefinition {
  if (!extension.setup) return extension;
  let { settings } = extension;
  const { id, where } = extension;
  const serverClass = extensionClass(id);
  const report = <A extends readonly unknown[]>(definition: MessageDefinition<A>, at: string, ...args: NoInfer<A>) => {
    problems.push(problem(definition, at, ...args));
  };
  const host: ExtensionHost = {
    extensionId: id,
    advertise: (value) => {
      if (value === undefined) settings = undefined;
      else if (isJsonObject(value)) settings = deepFreeze(structuredClone(value));
      else report(MESSAGES.extensionSettingsInvalid, `${where} advertise`, describe(value));
    },
    tool: (name) => {
      const tool = catalog.tools.get(name);
      if (!tool) return undefined;
      const declared = catalog.declared.get(`tool ${name}`) ?? NOTHING_DECLARED;
      const { options, servedUri } = declared;
      return Object.freeze({
        name,
        where: tool.where,
        descriptor: tool.extended?.plain ?? tool.descriptor,
        options,
        servedUri,
      }) as ExtensionTool;
    },
    resourceOf: (uri) => {
      const resource = catalog.resources.get(uri);
      if (!resource) return undefined;
      const { options } = catalog.declared.get(`resource ${uri}`) ?? NOTHING_DECLARED;
      const { mimeType } = resource.descriptor;
      return Object.freeze({ uri, where: resource.where, ...(mimeType ? { mimeType } : {}), options });
    },
    extendTool: (name, change) => extendTool(extension, catalog, String(name), change, report),
    extendResource: (uri, change) => extendResource(extension, catalog, String(uri), change, report),
    resource: (resource) => addResource(extension, serverClass, planning, catalog, resource, problems),
    resourceTemplate: (template) => addTemplate(extension, serverClass, planning, catalog, template, problems),
    get catalog() {
      return {
        serverClasses: catalog.serverClasses,
        tools: [...catalog.tools.keys()],
        resources: [...catalog.resources.keys()],
        resourceTemplates: [...catalog.resourceTemplates.keys()],
        prompts: [...catalog.prompts.keys()],
      };
    },
    problem: (message: string, fix: string, options?: ExtensionProblemOptions) => {
      const found = problem(
        MESSAGES.extensionProblem,
        options?.where === undefined ? where : String(options.where),
        String(message),
        String(fix),
      );
      problems.push(options?.code === undefined ? found : { ...found, code: String(options.code) });
    },
  };
  try {
    extension.setup(host);
  } catch (error) {
    report(MESSAGES.extensionSetupFailed, where, error instanceof Error ? error.message : String(error));
  }
  return settings === extension.settings ? extension : Object.freeze({ ...extension, settings });
}

type Report = <A extends readonly unknown[]>(definition: MessageDefinition<A>, at: string, ...args: NoInfer<A>) => void;

/** `host.extendTool`: the tool's descriptor gains `_meta` for negotiating clients; its plain one is kept for the others. */
function extendTool(
  extension: ExtensionDefinition,
  catalog: ExtensionCatalog,
  name: string,
  change: ExtensionToolChange,
  report: Report,
): void {
  const at = `${extension.where} extendTool(${JSON.stringify(name)})`;
  const tool = catalog.tools.get(name);
  if (!tool) {
    report(MESSAGES.extensionTargetMissing, at, 'tool', name);
    return;
  }
  const meta = change?._meta ?? {};
  if (!isJsonObject(meta)) {
    report(MESSAGES.extensionChangeInvalid, at, '_meta', 'a plain JSON object', describe(meta));
    return;
  }
  const exclusive = change?.onlyForExtensionClients ?? false;
  if (typeof exclusive !== 'boolean') {
    report(MESSAGES.extensionChangeInvalid, at, 'onlyForExtensionClients', 'true or false', describe(exclusive));
    return;
  }
  const plain = tool.extended?.plain ?? tool.descriptor;
  const own = deepFreeze(structuredClone(meta));
  const changes: readonly ToolChange[] = Object.freeze([
    ...(tool.extended?.changes ?? []),
    Object.freeze({ extension: { id: extension.id, ...(extension.accepts ? { accepts: extension.accepts } : {}) }, meta: own, exclusive }),
  ]);
  const descriptor =
    Object.keys(own).length === 0 ? tool.descriptor : deepFreeze({ ...tool.descriptor, _meta: { ...tool.descriptor._meta, ...own } });
  catalog.tools.set(name, Object.freeze({ ...tool, descriptor, extended: Object.freeze({ changes, plain }) }));
}

/** `host.extendResource`: `_meta` on the resource's listing and on the contents a read returns. */
function extendResource(
  extension: ExtensionDefinition,
  catalog: ExtensionCatalog,
  uri: string,
  change: ExtensionResourceChange,
  report: Report,
): void {
  const at = `${extension.where} extendResource(${JSON.stringify(uri)})`;
  const resource = catalog.resources.get(uri);
  if (!resource) {
    report(MESSAGES.extensionTargetMissing, at, 'resource', uri);
    return;
  }
  const meta = change?._meta;
  if (!isJsonObject(meta)) {
    report(MESSAGES.extensionChangeInvalid, at, '_meta', 'a plain JSON object', describe(meta));
    return;
  }
  const own = structuredClone(meta);
  catalog.resources.set(
    uri,
    Object.freeze({
      ...resource,
      descriptor: deepFreeze({ ...resource.descriptor, _meta: { ...resource.descriptor._meta, ...own } }),
      contentMeta: deepFreeze({ ...resource.contentMeta, ...own }),
    }),
  );
}

/** `host.resource`: a resource the extension serves, checked with the app's. */
function addResource(
  extension: ExtensionDefinition,
  serverClass: Constructor,
  planning: PlanContext,
  catalog: ExtensionCatalog,
  resource: ExtensionResource,
  problems: BuildProblem[],
): void {
  const at = `${extension.where} resource ${String(resource?.uri)}`;
  if (typeof resource?.uri !== 'string' || !URI_SCHEME.test(resource.uri)) {
    problems.push(problem(MESSAGES.resourceUriInvalid, at, String(resource?.uri)));
    return;
  }
  if (typeof resource.name !== 'string' || resource.name === '') {
    problems.push(problem(MESSAGES.nameMissing, at, 'resource'));
    return;
  }
  const clash = catalog.resources.get(resource.uri);
  if (clash) {
    problems.push(problem(MESSAGES.duplicateName, at, 'resource', resource.uri, clash.where));
    return;
  }
  const { read, ...fields } = resource;
  const descriptor = deepFreeze(structuredClone(fields) as Resource);
  const invoke: CallPlan['invoke'] = (_instance, _input, ctx) => read(viewOf(ctx, extension.id));
  catalog.resources.set(
    resource.uri,
    Object.freeze({
      uri: resource.uri,
      where: at,
      serverClass,
      descriptor,
      methodName: resource.uri,
      plan: planOf(planning, serverClass, 'resource', resource.uri, at, RAW, invoke),
    }),
  );
}

/** `host.resourceTemplate`: a template the extension serves, checked with the app's. */
function addTemplate(
  extension: ExtensionDefinition,
  serverClass: Constructor,
  planning: PlanContext,
  catalog: ExtensionCatalog,
  template: ExtensionResourceTemplate,
  problems: BuildProblem[],
): void {
  const at = `${extension.where} resource template ${String(template?.name)}`;
  let parsed: UriTemplate;
  try {
    parsed = new UriTemplate(template.uriTemplate);
  } catch (error) {
    problems.push(problem(MESSAGES.uriTemplateInvalid, at, String(template?.uriTemplate), (error as Error).message));
    return;
  }
  if (typeof template.name !== 'string' || template.name === '') {
    problems.push(problem(MESSAGES.nameMissing, at, 'resourceTemplate'));
    return;
  }
  const clash = catalog.resourceTemplates.get(template.uriTemplate);
  if (clash) {
    problems.push(problem(MESSAGES.duplicateName, at, 'resourceTemplate', template.uriTemplate, clash.where));
    return;
  }
  const { read, ...fields } = template;
  const descriptor = deepFreeze(structuredClone(fields) as ResourceTemplateType);
  // The template's variables come from the URI the client sent: strings, handed on as they are.
  const invoke: CallPlan['invoke'] = (_instance, variables, ctx) => {
    const view = viewOf(ctx, extension.id);
    return read(parsed.expand(variables as Record<string, string>), variables as Record<string, string>, view);
  };
  catalog.resourceTemplates.set(
    template.uriTemplate,
    Object.freeze({
      name: template.name,
      where: at,
      serverClass,
      descriptor,
      template: parsed,
      completions: new Map(),
      methodName: template.name,
      plan: planOf(planning, serverClass, 'resourceTemplate', template.name, at, RAW, invoke),
    }),
  );
}
