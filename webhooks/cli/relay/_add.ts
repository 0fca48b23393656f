// `relay add --url URL [--hook ID,...] [--allow-private-network] [--print-secret]`: a destination added from the
// command line, as the console's Forward to adds one, for the relay workers on the KV (the console's, a service's
// own) to deliver; `listen` is the one for a URL on this machine, removed when it ends. One URL gets one hook's
// postbacks from one destination (`unique`): a second add of it, or two at once, adds nothing and names the one
// there. The signing secret is WEBHOOK_SECRET (or --secret), else one generated and printed only with
// --print-secret (on stderr); with neither, nothing is added, as nobody could verify what it is sent.

import { createRelay } from "../../relay/mod.ts";
import { addRefusal, hookIdsFlag, printedSecret, secretFlag } from "./_destination_flags.ts";
import { jsonText } from "../_format.ts";
import { shownDestination } from "./_lists.ts";
import type { RelayContext } from "./_with_relay.ts";

/** What `relay add` takes beyond a relay command's context: secrets, and stderr for the one it prints when asked. */
export interface AddContext extends RelayContext {
  secret(flag: string, variable: string): string | undefined;
  err(text: string): void;
}

/** Adds the destination the flags describe; prints it (a line, or with --json the destination as listed). */
export async function addDestination(ctx: AddContext, usage: (message: string) => Error): Promise<void> {
  const url = ctx.flags.url;
  if (typeof url !== "string") throw usage("--url is required: the address of your app that receives the postbacks");
  const hookIds = hookIdsFlag(ctx.flags, usage);
  const secret = secretFlag((flag, variable) => ctx.secret(flag, variable), usage);
  const printSecret = ctx.flags["print-secret"] === true;
  if (secret === undefined && !printSecret) {
    throw usage(
      "set WEBHOOK_SECRET=whsec_... to the secret your app verifies signatures with, or run with --print-secret" +
        " to see the one generated for the destination: it is shown only once",
    );
  }
  const privateFlag = ctx.flags["allow-private-network"] === true;
  const relay = createRelay(ctx.kv, { allowPrivateNetwork: privateFlag });
  try {
    const added = await relay.destinations.add({
      url,
      unique: true,
      ...(hookIds ? { hookIds } : {}),
      ...(secret ? { secret } : {}),
    }).catch((error) => {
      throw addRefusal(error, { urlFlag: "url", hookIds, privateFlag: true }, usage);
    });
    const line = printedSecret(printSecret, secret, added.secret);
    if (line !== null) ctx.err(line);
    const shown = shownDestination(added);
    if (ctx.json) return ctx.out(jsonText(shown, 2));
    const hooks = hookIds ? `${hookIds.length === 1 ? "hook" : "hooks"} ${hookIds.join(", ")}` : "every hook";
    ctx.out(
      `Added destination ${added.id} for ${hooks}: ${shown.url}\n` +
        "A relay worker on this KV delivers it (the console's, or your service's relay.run())",
    );
  } finally {
    await relay.close();
  }
}
