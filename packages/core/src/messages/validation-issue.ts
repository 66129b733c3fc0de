/** One problem with a value: where (dotted path, empty for the root) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * What a value that is not a date-time hears, from the shape check and from its Ajv reference
 * alike: the format by name and one example, not the regular expression behind it.
 */
export const DATE_TIME_MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z';

/** One issue as a line: `path: message` (just the message for the root). */
export function formatIssue(issue: ValidationIssue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}

/** `Invalid arguments for tool "name":` followed by one `path: message` line per issue. */
export function formatIssues(heading: string, issues: readonly ValidationIssue[]): string {
  return [heading, ...issues.map(formatIssue)].join('\n');
}
