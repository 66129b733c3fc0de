/**
 * Injects the Armature `Context` of the MCP call into a request-scoped provider (undefined while
 * the provider serves a REST request). Injecting `Context` by its class works too.
 *
 * @example
 * ```ts
 * @Injectable({ scope: Scope.REQUEST })
 * class NotesRepository {
 *   constructor(@Inject(MCP_CONTEXT) private readonly ctx: Context | undefined) {}
 * }
 * ```
 */
export const MCP_CONTEXT = Symbol('MCP_CONTEXT');

/** The options given to `ArmatureModule.forRoot` (or made by `forRootAsync`'s factory). */
export const ARMATURE_OPTIONS = Symbol('ARMATURE_OPTIONS');
