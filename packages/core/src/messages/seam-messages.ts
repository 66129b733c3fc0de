/**
 * What Armature says when one of its seams into another library finds that library not as it
 * expects: the fast path behind that seam is switched off and the library's public path serves.
 */
export const seamMessages = {
  /** One line on stderr, once per process. */
  sdkFastPathOff(problems: readonly string[]): string {
    return (
      `[armature] the SDK fast path is off: ${problems.join('; ')}. Every request goes through the SDK's public ` +
      'request handling (correct, slower). Fix: install the @modelcontextprotocol/server version @armature/core pins, ' +
      'or update @armature/core.\n'
    );
  },
};
