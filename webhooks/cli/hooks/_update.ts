// `hooks update ID [--events a,b] [--object URL | --no-object] [--callback URL] [--enable | --disable]`: `update`,
// the platform's PUT of the hook as it will be, then its record. An operator whose receiver moved points each hook at
// its new address from a script (`hooks list --json` and a loop), or pauses a hook and resumes it. `--no-object`
// leaves the object out (a hook moved to system events). A change the library refuses is a usage error naming the flag, nothing sent;
// a new callback a platform on the internet cannot post to is warned of on stderr after, as `hooks register` does.

import { commaList, jsonText } from "../_format.ts";
import { flagError } from "../_flag_errors.ts";
import { shownHook } from "../_shown.ts";
import { callbackWarning } from "./_callback_reach.ts";
import { noHook } from "./_no_hook.ts";
import type { RegisterContext } from "./_register.ts";
import type { WebhookChanges } from "../../options.ts";

/** The fields of `update`'s changes that come from flags, to the flags. */
const UPDATE_FLAGS = { events: "events", object: "object", callback: "callback", enabled: "enable" };

/** Runs `hooks update`; `usage` makes a usage error (status 2) of a message. */
export async function updateCommand(
  ctx: RegisterContext & { args: string[] },
  usage: (message: string) => Error,
): Promise<void> {
  const f = ctx.flags;
  if (f.enable === true && f.disable === true) throw usage("give one of --enable and --disable, not both");
  if (typeof f.object === "string" && f["no-object"] === true) {
    throw usage("give one of --object and --no-object, not both");
  }
  const changes: WebhookChanges = {};
  if (typeof f.events === "string") {
    changes.events = commaList(f.events); // one named twice, once
    if (changes.events.length === 0) throw usage("--events needs one or more event names, separated by commas");
  }
  if (typeof f.object === "string") changes.object = f.object;
  if (f["no-object"] === true) changes.object = null;
  if (typeof f.callback === "string") changes.callback = f.callback;
  if (f.enable === true || f.disable === true) changes.enabled = f.enable === true;
  if (Object.keys(changes).length === 0) {
    throw usage("nothing to change: give --events, --object, --no-object, --callback, --enable or --disable");
  }
  // Read first: a secret refused (a control character in it) is a usage error whatever is stored.
  const accessToken = ctx.secret("access-token", "ACCESS_TOKEN");
  const refreshToken = ctx.secret("refresh-token", "REFRESH_TOKEN");
  const id = ctx.args[0];
  if (await ctx.hooks.findByID(id) === null) throw await noHook(ctx.kv, id);
  const record = await ctx.hooks.update(id, changes, { accessToken, refreshToken }).catch((error) => {
    throw flagError(error, "update webhook", UPDATE_FLAGS, usage);
  });
  // Its URLs as the other commands show them: a password in the callback (Basic auth) is a secret, never printed.
  const entity = shownHook(record).entity ?? {};
  const events = Array.isArray(entity.events) ? entity.events.join(",") : String(entity.events ?? "");
  ctx.out(
    ctx.json
      ? jsonText(shownHook(record), 2)
      : `Updated webhook ${record.id} (on the platform and here): events ${events || "none"}${
        entity.object ? `, object ${entity.object}` : ""
      }, callback ${entity.callback}, ${entity.enabled === false ? "disabled" : "enabled"}`,
  );
  if (changes.callback === undefined) return;
  const warning = await callbackWarning(changes.callback, "updated");
  if (warning !== undefined) ctx.err(warning);
}
