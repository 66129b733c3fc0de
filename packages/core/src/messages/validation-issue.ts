/** One problem with a value: where (dotted path, empty for the root) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** `Invalid arguments for tool "name":` followed by one `path: message` line per issue. */
export function formatIssues(heading: string, issues: readonly ValidationIssue[]): string {
  const lines = issues.map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
  return [heading, ...lines].join('\n');
}
