// The check-and-set of a community's secret rotation, for the community store (_community_store.ts).

import { ConflictError } from "../errors.ts";
import { describe } from "../_util.ts";
import type { Community } from "../types.ts";

/**
 * The check-and-set of a rotation: remembers the client secret a save (or
 * update) first read, and throws a {@linkcode ConflictError} when a later
 * read (its commit's check failed: another write got in first) finds that
 * secret replaced meanwhile and the record being written would replace it
 * again (with another secret, the one first read, or none). Nothing of the
 * save is stored then, so a rotation never silently turns another one's new
 * secret into the previous secret.
 */
export function secretGuard(
  what: "save" | "update",
  tenantId: string,
): (stored: Community | null, record: Community) => void {
  let first: { secret: string | undefined } | null = null;
  return (stored, record) => {
    const secret = stored?.clientSecret;
    if (first === null) {
      first = { secret };
      return;
    }
    if (secret !== first.secret && record.clientSecret !== secret) {
      throw new ConflictError(
        `Cannot ${what} community ${describe(tenantId)}: the secret changed meanwhile (another save replaced it), ` +
          "so nothing was stored; read the community again and retry",
      );
    }
  };
}
