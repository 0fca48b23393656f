// What `listen` and `relay add` share when they add a relay destination from flags: the hook ids of `--hook`, the
// signing secret of `WEBHOOK_SECRET` (or `--secret`), and the relay's refusals of what the flags gave, said in the
// flags' names (usage errors, status 2) or as a failed look-up (status 1), never echoing a secret.

import { flagError } from "../_flag_errors.ts";
import { commaList, quoted } from "../_format.ts";
import { shownUrl } from "../_shown.ts";

/** The most hooks one destination names (the relay's limit). */
const MAX_HOOKS = 1000;

/** The hook ids of `--hook` (comma-separated, each once); `undefined` when not given: every hook. */
export function hookIdsFlag(
  flags: Record<string, string | boolean | undefined>,
  usage: (message: string) => Error,
): string[] | undefined {
  if (typeof flags.hook !== "string") return undefined;
  const hookIds = commaList(flags.hook);
  if (hookIds.length === 0) throw usage("--hook needs one or more hook ids, separated by commas");
  if (hookIds.length > MAX_HOOKS) {
    const count = hookIds.length.toLocaleString("en-US");
    throw usage(`--hook names at most ${MAX_HOOKS.toLocaleString("en-US")} hook ids, got ${count}`);
  }
  return hookIds;
}

/** Whether `secret` is `whsec_` and 24 to 64 bytes in base64 (what a relay destination takes). */
function wellFormedSecret(secret: string): boolean {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : "";
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return false;
  const bytes = base64.length / 4 * 3 - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);
  return bytes >= 24 && bytes <= 64;
}

/** `WEBHOOK_SECRET` (or `--secret`) when given, checked; `undefined` when not: the relay generates one. */
export function secretFlag(
  secret: (flag: string, variable: string) => string | undefined,
  usage: (message: string) => Error,
): string | undefined {
  const given = secret("secret", "WEBHOOK_SECRET");
  if (given !== undefined && !wellFormedSecret(given)) {
    throw usage(
      "WEBHOOK_SECRET (or --secret) must be whsec_ followed by 24 to 64 bytes in base64, as your app verifies with" +
        " (the value given is not shown); or leave it unset and run with --print-secret to see a generated one",
    );
  }
  return given;
}

/**
 * The stderr line of `--print-secret`: the secret `added` was given when the relay generated it, which nobody else has;
 * one given (`WEBHOOK_SECRET` or `--secret`) is the operator's own, named as used and never shown, since a script's
 * log keeps stderr. `null` without the flag.
 */
export function printedSecret(printSecret: boolean, given: string | undefined, added: string): string | null {
  if (!printSecret) return null;
  return given === undefined
    ? `Signing secret: ${added}`
    : "Signing secret: the one given (WEBHOOK_SECRET or --secret), not shown";
}

/** The id of `ids` that the relay's message shows as `shown` (an id over 80 characters cut to 77 and `...`). */
function givenId(ids: string[], shown: string): string {
  const cut = shown.endsWith("...") ? shown.slice(0, -3) : null;
  return ids.find((id) => id === shown) ?? ids.find((id) => cut !== null && id.startsWith(cut)) ?? shown;
}

/**
 * What a refused `relay.destinations.add` of flags' values is: a usage error when the URL is at fault (named as
 * `--<urlFlag>`; the private-address guard's way out named as `--allow-private-network` when `privateFlag`); a
 * failed look-up naming the id when `--hook` named no webhook; a clash with a destination at the same URL said with
 * the URL as the CLI shows URLs; anything else (the KV failing) as it is.
 */
export function addRefusal(
  error: unknown,
  options: { urlFlag: string; hookIds?: string[]; privateFlag?: boolean },
  usage: (message: string) => Error,
): unknown {
  // A URL the relay refuses (not one, another scheme, a password in it, too long) is the flag's value at fault: a
  // usage error (status 2, API.md), said in the flag's name. The relay's message never echoes credentials.
  const refused = flagError(error, "add destination", { url: options.urlFlag }, usage);
  if (refused !== error) {
    if (!options.privateFlag || !(refused instanceof Error)) return refused;
    return usage(refused.message.replace(/allowPrivateNetwork allows it$/, "--allow-private-network allows it"));
  }
  if (!(error instanceof TypeError)) return error;
  // An id no webhook has: a failed look-up (status 1), worded as the other commands' unknown ids, naming the flag.
  const unknown = /^Cannot add destination: unknown hook id (".*")$/s.exec(error.message);
  if (unknown && options.hookIds) {
    return new Error(
      `No webhook has the id ${quoted(givenId(options.hookIds, JSON.parse(unknown[1])))} (given with --hook)`,
    );
  }
  const clash = /^Cannot add destination: (.*) already receives (.*) through destination (\S+); /s.exec(error.message);
  if (clash) {
    const [, url, what, id] = clash;
    return new Error(
      `Nothing added: ${shownUrl(url)} already receives ${what} through destination ${id}` +
        ` (relay remove ${id} first, to replace it)`,
    );
  }
  return error;
}
