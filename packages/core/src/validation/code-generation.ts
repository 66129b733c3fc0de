let allowed: boolean | undefined;

/**
 * Whether this runtime compiles code from strings (`new Function`): Cloudflare Workers and
 * `node --disallow-code-generation-from-strings` refuse it with an EvalError. Asked once.
 */
export function codeGenerationAllowed(): boolean {
  if (allowed === undefined) {
    try {
      new Function('');
      allowed = true;
    } catch {
      allowed = false;
    }
  }
  return allowed;
}
