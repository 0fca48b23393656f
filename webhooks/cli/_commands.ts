// What each command of the command line does, through Module A's public
// interface. A command writes its result to `out` (a table, or one JSON
// document with --json), progress to `progress` (stderr: always for
// reconcile and migrate, whose progress API.md promises; for the paging of
// other commands on a terminal only), and throws to fail.

import {
  COMMUNITY_HEAD,
  communityDetails,
  communityEntryRow,
  HOOK_HEAD,
  hookEntryRow,
  hookTable,
  jsonText,
  publicCommunity,
  quoted,
  shownCommunityEntry,
  shownHookEntry,
} from "./_format.ts";
import { communityDamage, listCommunityEntries, listHookEntries, listTenantHookEntries } from "../store/mod.ts";
import { noHook, registerCommand, updateCommand } from "./hooks/mod.ts";
import type { Community, Webhook } from "../types.ts";
import type { Webhooks } from "../webhooks.ts";
import type { LastTask } from "./_interrupt.ts";
import { addCommunity } from "./_community_add.ts";
import { reconcileCommand } from "./_reconcile.ts";
import { printPages } from "./_paged.ts";
import { receive } from "./receive/mod.ts";
import {
  addDestination,
  listAttempts,
  listDeadLetters,
  listDestinations,
  listen,
  redeliver,
  removeDestination,
  setEnabled,
} from "./relay/mod.ts";
import { shownHook } from "./_shown.ts";

/** What a command gets. */
export interface CommandContext {
  hooks: Webhooks;
  /** The KV the command runs on. */
  kv: Deno.Kv;
  /** How to name that KV to the user: its file path, or "the KV Connect database" (a URL is never shown). */
  kvName: string;
  args: string[];
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  /** A progress line on stderr: on a terminal only, unless `always` (API.md promises reconcile's and migrate's). */
  progress(text: string, always?: boolean): void;
  /** A secret from its flag, else its environment variable. */
  secret(flag: string, variable: string): string | undefined;
  /** Aborts on Ctrl-C. */
  signal: AbortSignal;
  /** Sets (or clears) what a second Ctrl-C still does before the process ends. */
  lastly(task: LastTask | null): void;
  /** Set by reconcile: called on each page the platform answers. */
  onPlatformPage: (() => void) | null;
}

type Command = (ctx: CommandContext) => Promise<void>;

function print(ctx: CommandContext, value: unknown, text: () => string): void {
  ctx.out(ctx.json ? jsonText(value, 2) : text());
}

async function communityNamed(ctx: CommandContext, name: string): Promise<Community> {
  const community = await ctx.hooks.communities.findByName(name);
  if (!community) throw new Error(`No community is named ${quoted(name)}`);
  return community;
}

function hooksOut(ctx: CommandContext, hooks: Webhook[]): void {
  print(ctx, hooks.map(shownHook), () => hookTable(hooks));
}

const COMMANDS: Record<string, Command> = {
  async "communities list"(ctx) {
    await printPages(ctx, {
      what: "communities",
      // Every stored entry, a damaged one too (communities.list passes over those), named as damaged.
      page: (cursor) => listCommunityEntries(ctx.kv, 500, cursor),
      shown: shownCommunityEntry,
      head: COMMUNITY_HEAD,
      row: communityEntryRow,
      none: "No communities.",
    });
  },

  async "communities show"(ctx) {
    const community = await communityNamed(ctx, ctx.args[0]);
    // Shown as whole, a field of the wrong type would read as absent ("client secret none"): named instead.
    const damaged = communityDamage(community.tenantId, community);
    if (damaged !== null) {
      throw new Error(
        `The stored community ${quoted(community.name)} (tenant ${quoted(community.tenantId)}) is damaged: ` +
          `${damaged}; store the fields named again with communities add (the fields given replace the stored ones), ` +
          "or remove it with communities remove",
      );
    }
    const rotation = await ctx.hooks.communities.secretRotation(community.tenantId);
    const valid = rotation && Date.parse(rotation.validUntil) > Date.now() ? rotation : null;
    // The JSON carries what the table shows, as `communities add --json` does.
    const value = { ...publicCommunity(community), ...(valid ? { secretRotation: valid } : {}) };
    print(ctx, value, () => communityDetails(community, valid));
  },

  "communities add": (ctx) => addCommunity(ctx, usageHint),

  async "communities remove"(ctx) {
    const community = await communityNamed(ctx, ctx.args[0]);
    await ctx.hooks.communities.remove(community.tenantId);
    print(ctx, { removed: publicCommunity(community) }, () => `Removed community ${quoted(community.name)}`);
  },

  async "communities revoke-previous-secret"(ctx) {
    const community = await communityNamed(ctx, ctx.args[0]);
    const revoked = await ctx.hooks.communities.revokePreviousSecret(community.tenantId);
    print(
      ctx,
      { revoked, community: community.name },
      () =>
        revoked
          ? `Revoked the previous client secret of ${quoted(community.name)}: only the current one verifies now`
          : `Community ${quoted(community.name)} has no previous client secret to revoke`,
    );
  },

  async "hooks list"(ctx) {
    const tenantId = typeof ctx.flags.tenant === "string" ? ctx.flags.tenant : undefined;
    if (tenantId === undefined) {
      // Every stored entry, a damaged one too (list passes over those), named as damaged.
      return await printPages(ctx, {
        what: "webhooks",
        page: (cursor) => listHookEntries(ctx.kv, 500, cursor),
        shown: shownHookEntry,
        head: HOOK_HEAD,
        row: hookEntryRow,
        none: "No webhooks.",
      });
    }
    // Every index entry of the tenant, one `list` passes over or shows whole although its record is not, named as
    // damaged in the same form.
    await printPages(ctx, {
      what: "webhooks",
      page: (cursor) => listTenantHookEntries(ctx.kv, tenantId, 500, cursor),
      shown: shownHookEntry,
      head: HOOK_HEAD,
      row: hookEntryRow,
      none: "No webhooks.",
    });
  },

  async "hooks find"(ctx) {
    const { url, id } = ctx.flags;
    if (typeof url === "string" === (typeof id === "string")) throw new UsageHint("give one of --url and --id");
    if (typeof url === "string") return hooksOut(ctx, await ctx.hooks.findByWebhookURL(url));
    const hook = await ctx.hooks.findByID(String(id));
    if (!hook) throw await noHook(ctx.kv, String(id));
    print(ctx, shownHook(hook), () => hookTable([hook]));
  },

  "hooks register": (ctx) => registerCommand(ctx, usageHint),

  "hooks update": (ctx) => updateCommand(ctx, usageHint),

  async "hooks unregister"(ctx) {
    const id = ctx.args[0];
    const hook = await ctx.hooks.findByID(id);
    if (!hook) throw await noHook(ctx.kv, id);
    // By its id, not the record read: the library then says a damaged record is damaged, naming its field, rather than
    // blaming an argument the operator never gave.
    await ctx.hooks.unregister(
      id,
      ctx.secret("access-token", "ACCESS_TOKEN"),
      ctx.secret("refresh-token", "REFRESH_TOKEN"),
    );
    print(ctx, { unregistered: shownHook(hook) }, () => `Unregistered webhook ${hook.id} (on the platform and here)`);
  },

  reconcile: async (ctx) => reconcileCommand(ctx, await communityNamed(ctx, ctx.args[0])),

  receive: (ctx) => receive(ctx, usageHint),

  listen: (ctx) => listen(ctx, usageHint),

  "relay destinations": listDestinations,

  "relay add": (ctx) => addDestination(ctx, usageHint),

  "relay dead-letters": (ctx) => listDeadLetters(ctx, usageHint),

  "relay attempts": (ctx) => listAttempts(ctx, usageHint),

  "relay redeliver": (ctx) => redeliver(ctx, usageHint),

  "relay enable": (ctx) => setEnabled(ctx, true, usageHint),

  "relay disable": (ctx) => setEnabled(ctx, false, usageHint),

  "relay remove": (ctx) => removeDestination(ctx, usageHint),

  async migrate(ctx) {
    const report = await ctx.hooks.migrate({
      onProgress: (p) =>
        ctx.progress(`${p.scanned.toLocaleString("en-US")} index entries scanned, ${p.migrated} migrated`, true),
    });
    print(
      ctx,
      report,
      () =>
        `Migrated ${report.migrated} index entries, removed ${report.removed} stale ones (${report.scanned} scanned)`,
    );
  },
};

/** A usage mistake found while running a command (exit status 2). */
export class UsageHint extends Error {}

/** A usage mistake said by `message`: how the commands' helpers make one. */
function usageHint(message: string): UsageHint {
  return new UsageHint(message);
}

/** Runs the command named by its words. */
export function runCommand(words: string[], ctx: CommandContext): Promise<void> {
  return COMMANDS[words.join(" ")](ctx);
}
