import type { Prompt, Resource, ResourceTemplateType as ResourceTemplateDescriptor, Tool, UriTemplate } from '@modelcontextprotocol/server';
import type { ArgumentLimits, CompletionSource, Constructor, JsonSchema, McpServerOptions } from '../metadata/metadata-args.js';
import type { HandlerPipeline } from '../pipeline/call-pipeline.js';
import type { JsonValidator } from '../validation/json-schema-validator.js';

/** How a tool's arguments are turned into what the method receives. */
export type InputDefinition =
  | { readonly kind: 'none' }
  | { readonly kind: 'dto'; readonly dto: Constructor; readonly shape: JsonValidator }
  | { readonly kind: 'schema'; readonly validate: JsonValidator };

/** How a tool's return value is checked before it is sent as `structuredContent`. */
export type OutputDefinition =
  | { readonly kind: 'none' }
  | { readonly kind: 'dto'; readonly dto: Constructor }
  | { readonly kind: 'schema'; readonly validate: JsonValidator };

/** A tool, built and frozen at start-up. The runtime reads only these. */
export interface ToolDefinition {
  readonly name: string;
  /** `Class.method`, for messages. */
  readonly where: string;
  readonly serverClass: Constructor;
  readonly method: (...args: unknown[]) => unknown;
  /** What `tools/list` advertises for this tool. */
  readonly descriptor: Readonly<Tool>;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly input: InputDefinition;
  readonly output: OutputDefinition;
  readonly limits: Readonly<Required<ArgumentLimits>>;
  readonly methodName: string;
  /** Guards, interceptors and required scopes declared on the class and the method. */
  readonly pipeline: HandlerPipeline;
}

/** Where completions for one argument come from, resolved at start-up. */
export type CompletionDefinition =
  | { readonly kind: 'function'; readonly fn: Extract<CompletionSource, Function> }
  | { readonly kind: 'method'; readonly serverClass: Constructor; readonly method: (...args: unknown[]) => unknown };

/** A resource with a fixed URI. */
export interface ResourceDefinition {
  readonly uri: string;
  readonly where: string;
  readonly serverClass: Constructor;
  readonly method: (...args: unknown[]) => unknown;
  readonly descriptor: Readonly<Resource>;
  readonly methodName: string;
  readonly pipeline: HandlerPipeline;
}

/** Resources addressed by a URI template; variables validated into `params`. */
export interface ResourceTemplateDefinition {
  readonly name: string;
  readonly where: string;
  readonly serverClass: Constructor;
  readonly method: (...args: unknown[]) => unknown;
  readonly descriptor: Readonly<ResourceTemplateDescriptor>;
  readonly template: UriTemplate;
  readonly params?: Constructor;
  readonly completions: ReadonlyMap<string, CompletionDefinition>;
  readonly methodName: string;
  readonly pipeline: HandlerPipeline;
}

/** A prompt; arguments validated into `args`. */
export interface PromptDefinition {
  readonly name: string;
  readonly where: string;
  readonly serverClass: Constructor;
  readonly method: (...args: unknown[]) => unknown;
  readonly descriptor: Readonly<Prompt>;
  readonly args?: Constructor;
  readonly completions: ReadonlyMap<string, CompletionDefinition>;
  readonly methodName: string;
  readonly pipeline: HandlerPipeline;
}

/** Everything one app serves, built and frozen at start-up. */
export interface AppDefinition {
  readonly info: Readonly<Pick<McpServerOptions, 'name' | 'version' | 'title' | 'icons'>>;
  readonly instructions?: string;
  readonly serverClasses: readonly Constructor[];
  readonly requestScoped: readonly Constructor[];
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /** The `tools/list` payload, in declaration order. */
  readonly toolList: readonly Tool[];
  readonly resources: ReadonlyMap<string, ResourceDefinition>;
  /** In declaration order: the first template matching a URI serves it. */
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  readonly prompts: ReadonlyMap<string, PromptDefinition>;
}
