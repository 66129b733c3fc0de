import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/server';
import type {
  AppDefinition,
  CallPlan,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../builder/definitions.js';
import type { Middleware } from '../context/execution-context.js';
import type { RequestTracing } from '../observability/request-tracing.js';
import type { ServerEvents } from '../observability/server-events.js';
import { visibleEntries } from './access.js';
import { promptKind, toolKind } from './call-kinds.js';
import type { RequestEnvironment } from './call-request.js';
import type { Catalog } from './catalog.js';
import type { ChangeBroadcaster } from './change-notifier.js';
import type { CallKind, ExecutorSettings } from './execute-call.js';
import { visibleTools } from './extensions/tool-views.js';
import type { TaskService } from './tasks/task-service.js';

/** What serving needs from the app: its definitions, run-time catalogs and settings. */
export interface ServedApp extends RequestEnvironment, ExecutorSettings {
  readonly definition: AppDefinition;
  readonly capabilities: ServerCapabilities;
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly resources: Catalog<ResourceDefinition, Resource>;
  readonly resourceTemplates: Catalog<ResourceTemplateDefinition, ResourceTemplateType>;
  readonly prompts: Catalog<PromptDefinition, Prompt>;
  readonly middleware: readonly Middleware[];
  readonly pageSize: number;
  readonly maxUriLength: number;
  readonly maxSubscriptionsPerSession: number;
  readonly broadcaster: ChangeBroadcaster;
  readonly tasks: TaskService;
  readonly events: ServerEvents;
  readonly telemetry: RequestTracing;
  /** The tool and prompt kinds, made once: they name the entries a caller may see. */
  readonly kinds: {
    readonly tools: CallKind<CallToolResult, ToolDefinition>;
    readonly prompts: CallKind<GetPromptResult, PromptDefinition>;
  };
}

/** The kinds that answer an unknown or hidden name with the names this caller may see. */
export function callKindsOf(app: Pick<ServedApp, 'tools' | 'prompts'>): ServedApp['kinds'] {
  return {
    tools: toolKind(async (call) => (await visibleTools(app, call)).map((t) => t.name)),
    prompts: promptKind(async (call) => (await visibleEntries(app.prompts, call)).map((p) => p.name)),
  };
}

/** The template serving `uri`: the first enabled one whose pattern matches, with its variables. */
export function matchTemplate(
  app: Pick<ServedApp, 'resourceTemplates'>,
  uri: string,
): { template: ResourceTemplateDefinition; variables: Record<string, unknown> } | undefined {
  for (const template of app.resourceTemplates.enabledDefinitions()) {
    const variables = template.template.match(uri);
    if (variables) return { template, variables };
  }
  return undefined;
}

/** The plan that answers for `uri` (a resource, else the first matching template), if any. */
export function planOfUri(app: Pick<ServedApp, 'resources' | 'resourceTemplates'>, uri: string): CallPlan | undefined {
  return app.resources.get(uri)?.plan ?? matchTemplate(app, uri)?.template.plan;
}

/** A client subscribed to `uri` (already allowed): a remote server's resource asks its remote to tell of changes. */
export function watchUri(app: Pick<ServedApp, 'resources' | 'resourceTemplates'>, uri: string): void {
  const watch = app.resources.get(uri)?.watch ?? matchTemplate(app, uri)?.template.watch;
  watch?.(uri);
}
