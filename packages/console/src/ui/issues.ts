/** The server's validation problems of one call, by the dotted path of the field they name. */
export interface CallIssues {
  readonly byPath: ReadonlyMap<string, readonly string[]>;
  /** Issues of the arguments as a whole (no path), or naming no field the form shows. */
  readonly general: readonly string[];
}

const HEADING = /^Invalid arguments for tool "[^"]*":$/;
const LINE = /^([^\s:]+): (.+)$/;

/**
 * Reads Armature's validation error (`Invalid arguments for tool "x":` then one `path: message` line
 * per issue). Another text is not a validation error: undefined.
 */
export function parseIssues(text: string): CallIssues | undefined {
  const [heading, ...lines] = text.replace(/^Input validation error: /, '').split('\n');
  if (!heading || !HEADING.test(heading.trim())) return undefined;
  const byPath = new Map<string, string[]>();
  const general: string[] = [];
  for (const line of lines) {
    const match = LINE.exec(line.trim());
    if (!match?.[1] || !match[2]) {
      if (line.trim()) general.push(line.trim());
      continue;
    }
    byPath.set(match[1], [...(byPath.get(match[1]) ?? []), match[2]]);
  }
  return { byPath, general };
}
