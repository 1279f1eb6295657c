/**
 * The JSON text of a page whose items are kept JSON texts: `JSON.stringify(head)` with `"results":[<joined>]` as its
 * last member — what `JSON.stringify({ ...head, results: items })` writes when `joined` is the items' texts joined
 * with commas (`''` for none). The texts are copied in unparsed. `head` has at least one member (every page's does:
 * its total and limit).
 */
export function withResultsJson(head: object, joined: string): string {
  return `${JSON.stringify(head).slice(0, -1)},"results":[${joined}]}`;
}
