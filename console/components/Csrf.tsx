/**
 * The hidden CSRF field every form of the console carries.
 *
 * @module
 */

import type { VNode } from "preact";

/** Hidden `_csrf` input holding the session's CSRF token. */
export function Csrf({ token }: { token: string }): VNode {
  return <input type="hidden" name="_csrf" value={token} />;
}
