// The check the communities_*_test.ts files share: a page shows none of a
// community's secrets.

import assert from "node:assert/strict";

/** Asserts that `html` holds none of `secrets`, naming only their lengths. */
export function noSecrets(html: string, ...secrets: string[]): void {
  for (const s of secrets) {
    assert.ok(!html.includes(s), `the page must not show a secret (${s.length} chars)`);
  }
}
