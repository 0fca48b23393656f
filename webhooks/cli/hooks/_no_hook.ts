// The error of `hooks find --id` and `hooks unregister` when an id names no record: an entry edited into junk under
// that id is not nothing, and is said to be damaged (as `hooks list` shows it), not missing.

import { hookEntryDamageAt } from "../../store/mod.ts";
import { quoted } from "../_format.ts";

/** Why `id` names no record: its stored entry damaged, and what is wrong; or nothing stored under it. */
export async function noHook(kv: Deno.Kv, id: string): Promise<Error> {
  const damaged = await hookEntryDamageAt(kv, id);
  return new Error(
    damaged === null ? `No webhook has the id ${quoted(id)}` : `The stored record ${quoted(id)} is damaged: ${damaged}`,
  );
}
