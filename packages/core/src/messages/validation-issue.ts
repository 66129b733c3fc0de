/** One problem with a value: where (dotted path, empty for the root) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** One issue as a line: `path: message` (just the message for the root). */
export function formatIssue(issue: ValidationIssue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}

/** `Invalid arguments for tool "name":` followed by one `path: message` line per issue. */
export function formatIssues(heading: string, issues: readonly ValidationIssue[]): string {
  return [heading, ...issues.map(formatIssue)].join('\n');
}
