const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/**
 * A value written as TypeScript source in the generated projects' style (single quotes, unquoted
 * keys). A long run of one character is written as `'x'.repeat(65)` so a test shows the length.
 */
export function tsLiteral(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length > 12 && /^(.)\1*$/.test(value)) return `${quote(value[0] as string)}.repeat(${value.length})`;
    return quote(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `[${value.map(tsLiteral).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([key, v]) => `${IDENTIFIER.test(key) ? key : quote(key)}: ${tsLiteral(v)}`).join(', ')} }`;
}

/** A string as a single-quoted TypeScript literal. */
export const tsString = (text: string): string => quote(text);
