/** The regular expression text matching `text` literally. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A literal piece of a path template as the URL parser writes it: controls, space, `"#<>?\`{}` and
 * non-ASCII percent-encoded (WHATWG's path set). Dots and backslashes are left as they are, so a
 * template with a dot segment or a `\\` fits no URL: the check fails closed.
 */
const encodedPiece = (piece: string): string => piece.replace(/[^\x21-\x7e]|["#<>?`{}]/gu, (char) => encodeURIComponent(char));

/**
 * Whether a built request URL is still the operation's: on the API's origin, and its path the
 * base path followed by the template, each `{parameter}` one non-empty segment. A check after the
 * URL is built, behind the refusal of dot segments in the values (defence in depth).
 */
export function fitsTemplate(url: URL, base: URL, template: string): boolean {
  if (url.origin !== base.origin) return false;
  const basePath = base.pathname.replace(/\/+$/, '');
  const pieces = template.split(/\{[^}]*\}/).map((piece) => literally(encodedPiece(piece)));
  return new RegExp(`^${literally(basePath)}${pieces.join('[^/]+')}$`).test(url.pathname);
}
