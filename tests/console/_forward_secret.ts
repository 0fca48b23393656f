// The secret of a Forward to page, as a test reads it without a browser.

import { parse } from "./_helpers.ts";

/** The secret a Forward to page shows (`#forward-secret`), or `undefined` when it shows none. */
export function secretOf(html: string): string | undefined {
  const page = parse(html);
  try {
    return page.document.querySelector("#forward-secret")?.textContent ?? undefined;
  } finally {
    page.close();
  }
}
