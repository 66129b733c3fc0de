/** What the request engine says about itself on stderr. */
export const engineMessages = {
  modernEngineOff(reason: string): string {
    return `[armature] the 2026-07-28 request engine is off (every such request goes through the SDK): ${reason}\n`;
  },
};

/**
 * What Armature says when one of its seams into another library finds that library not as it
 * expects: the shortcut behind that seam is switched off and the library's public path serves.
 */
export const seamMessages = {
  /** One line on stderr, once per process. */
  sdkEngineOff(problems: readonly string[]): string {
    return (
      `[armature] the request engine is off: ${problems.join('; ')}. Every request goes through the SDK's public ` +
      'request handling (correct, slower). Fix: install the @modelcontextprotocol/server version @armature/core pins, ' +
      'or update @armature/core.\n'
    );
  },
  /** One line on stderr, once per process. */
  clientCodecOff(problem: string): string {
    return (
      `[armature] the direct path of tool calls to 2026-07-28 HTTP remote servers is off: ${problem}. Every call goes ` +
      'through the official client (correct, slower). Fix: install the @modelcontextprotocol/client version @armature/core pins, ' +
      'or update @armature/core.\n'
    );
  },
  /** One line on stderr, once per process. */
  otelKeyUnchecked(problem: string): string {
    return (
      `[armature] telemetry cannot tell whether OpenTelemetry is registered without loading its API: ${problem}. ` +
      '@opentelemetry/api is loaded on first use (correct, heavier). Fix: install the @opentelemetry/api version @armature/core pins, ' +
      'or update @armature/core.\n'
    );
  },
  /** One line on stderr, once per process. */
  /** `where`: loaded from disk (Node) or imported from a Worker's bundle, each with its own fix. */
  otelApiMissing(problem: string, where: 'node' | 'worker' = 'node'): string {
    const fix =
      where === 'worker'
        ? 'Fix: build the Worker with armature build --target workers from a project where @armature/core is installed with its ' +
          'dependencies (it depends on @opentelemetry/api): the build puts the API in the bundle.'
        : 'Fix: install the dependencies of @armature/core again (it depends on @opentelemetry/api); a bundle made by ' +
          'armature build runs next to the node_modules it was built from.';
    return `[armature] OpenTelemetry is registered but @opentelemetry/api could not be loaded: ${problem}. Armature records no spans nor metrics. ${fix}\n`;
  },
  classTransformerOff(problem: string): string {
    return (
      `[armature] class-transformer's records cannot be read (${problem}): nested DTO types are not taken from @Type, ` +
      'and class-transformer and class-validator check every call themselves (slower). Fix: install the class-transformer ' +
      'version @armature/core pins, in one copy (npm ls class-transformer).\n'
    );
  },
  classValidatorOff(problem: string): string {
    return (
      `[armature] the compiled DTO checks are off (${problem}): class-transformer and class-validator check every call ` +
      'themselves (slower). Fix: install the class-validator version @armature/core pins, or update @armature/core.\n'
    );
  },
  singleCopyCheckOff(problem: string): string {
    return (
      `[armature] the check for a second copy of class-validator is off (${problem}): a split install or loader is not ` +
      'named at start-up. Fix: install the class-validator version @armature/core pins, or update @armature/core.\n'
    );
  },
  /** One line on stderr, once per process. */
  sessionStateOff(problems: readonly string[]): string {
    return (
      `[armature] a shared session is re-created on another instance by replaying its initialize (${problems.join('; ')}): ` +
      "the SDK's session state cannot be restored directly (correct, slower). Fix: install the @modelcontextprotocol/server " +
      'version @armature/core pins, or update @armature/core.\n'
    );
  },
  /** One line on stderr, once per process. */
  sessionFramingOff(problems: readonly string[]): string {
    return (
      `[armature] 2025-11-25 session answers are framed by the SDK's session transport (${problems.join('; ')}): ` +
      'its SSE framing differs from the one Armature copies (correct, slower). Fix: install the @modelcontextprotocol/server ' +
      'version @armature/core pins, or update @armature/core.\n'
    );
  },
  typediOff(problem: string): string {
    return (
      `[armature] typedi's @Inject records cannot be read (${problem}): parameters of server and @RequestScoped classes ` +
      'are resolved by their type only. Fix: install the typedi version @armature/core pins, or pass another container.\n'
    );
  },
};
