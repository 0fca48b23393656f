/**
 * "Next page" link for cursor pagination, keeping the other query
 * parameters of the page.
 *
 * @module
 */

import type { VNode } from "preact";

/** Props of {@linkcode Pager}. */
export interface PagerProps {
  /** The page's path. */
  path: string;
  /** Query parameters to keep (empty values are dropped). */
  params: Record<string, string | undefined>;
  /** The cursor of the next page; "" when there is none. */
  cursor: string;
}

/** Navigation to the first and the next page. */
export function Pager({ path, params, cursor }: PagerProps): VNode {
  const query = (extra: Record<string, string>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...params, ...extra })) {
      if (v) q.set(k, v);
    }
    const s = q.toString();
    return s ? `${path}?${s}` : path;
  };
  return (
    <nav class="pager">
      {params.cursor && <a href={query({ cursor: "" })}>First page</a>}
      {cursor && (
        <a href={query({ cursor })} rel="next" id="next-page">
          Next page
        </a>
      )}
    </nav>
  );
}
