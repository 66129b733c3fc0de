/** Where an OpenAPI parameter travels. Cookie parameters are not generated (a tool has no cookie jar). */
export type ParameterLocation = 'path' | 'query' | 'header';

/** One parameter of an operation: the `name` the API expects, the DTO `field` holding its value. */
export interface OpenApiParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly field: string;
}

/**
 * What a generated tool needs to know of its operation to make the HTTP call; written by
 * `armature generate openapi` next to the DTOs, so the DTO and this record come from one document.
 */
export interface OpenApiOperation {
  /** The operation's `operationId`, also the tool's name. */
  readonly operationId: string;
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';
  /** The path template, e.g. `/pets/{petId}`. */
  readonly path: string;
  readonly parameters: readonly OpenApiParameter[];
  /** The DTO field sent as the JSON request body, when the operation takes one. */
  readonly body?: string;
  /**
   * True when the operation's success response declares a JSON object: the parsed answer becomes
   * the tool's `structuredContent`. Otherwise the answer is sent as text.
   */
  readonly structured: boolean;
}
