// The guides link to headings with the anchors a code host gives them (`getting-started.md#tsconfigjson`
// for "tsconfig.json"). The site uses the same rule so one link works in both places: lower case,
// punctuation other than `-` and `_` dropped, each space a hyphen (duplicates numbered by markdown-it-anchor).
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}
