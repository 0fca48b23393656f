// register() and the platform calls behind it: the credentials of a call
// (explicit ones, else the community's), the platform context that renews
// tokens once when they expired, the registration itself with its pending
// entry, and the clean-up of a hook the platform has but could not be saved.

import { type Communities, selfRef, writeRecord } from "../store/mod.ts";
import { pendingKey, withLockRetry } from "../kv/mod.ts";
import { type Credentials, type PlatformContext, platformRequest, platformUrl } from "./_platform.ts";
import { validateRegistration } from "./_validate.ts";
import { LEASE_MARGIN_MS } from "./_renewal_lease.ts";
import { deleteOnPlatform } from "./_hook_url.ts";
import { entityOf } from "./_answer.ts";
import { updateHook } from "./_update.ts";
import { platformOperation } from "../telemetry/mod.ts";
import { baseUrlTailProblem, describe } from "../_util.ts";
import type { Community, PendingRegistration, RegistrationResponse, TokenPair, Webhook } from "../types.ts";
import type { CredentialOptions, RegisterOptions, TokenPersistenceFunction, WebhookChanges } from "../options.ts";

/** Why a platform call without an access token fails (SPEC.md's words), after what it was doing. */
export const NO_TOKEN_REASON = "no access token is associated with the community and none was provided explicitly";

/** What register() and the other platform calls need of the store. */
export interface PlatformDeps {
  kv: Deno.Kv;
  communities: Communities;
  fetchFn: typeof fetch;
  timeout: number;
  newId: () => string;
  findByWebhookURL: (url: string) => Promise<Webhook[]>;
  findByID: (id: string) => Promise<Webhook | null>;
}

/** The platform operations of one store: credentials, contexts and register(). */
export function platformOps(deps: PlatformDeps): {
  credentialsFor: (community: Community, given: CredentialOptions, action: string) => Credentials;
  contextFor: (community: Community, credentials: Credentials, given: CredentialOptions) => PlatformContext;
  register: (...args: [RegisterOptions] | Parameters<typeof positional>) => Promise<RegistrationResponse>;
  update: (webhook: Webhook | string, changes: WebhookChanges, given?: CredentialOptions) => Promise<Webhook>;
} {
  const { kv, communities, fetchFn, timeout, newId, findByWebhookURL, findByID } = deps;
  /** The credentials of a call: explicit ones first, else the community's; without, `action` failed (SPEC.md's words). */
  function credentialsFor(community: Community, given: CredentialOptions, action: string): Credentials {
    if (given.accessToken) {
      return { accessToken: given.accessToken, refreshToken: given.refreshToken ?? undefined };
    }
    const accessToken = community.oauth?.access_token;
    if (typeof accessToken !== "string" || accessToken === "") {
      throw new Error(`${action} failed because ${NO_TOKEN_REASON}`);
    }
    return { accessToken, refreshToken: community.oauth?.refresh_token };
  }

  function contextFor(community: Community, credentials: Credentials, given: CredentialOptions): PlatformContext {
    if (typeof community.baseUrl !== "string" || !/^https?:$/.test(URL.parse(community.baseUrl)?.protocol ?? "")) {
      throw new TypeError(
        `Cannot call the platform: community ${describe(community.name)} has no http(s) 'baseUrl', got ${
          describe(community.baseUrl)
        }`,
      );
    }
    const tail = baseUrlTailProblem(community.baseUrl);
    if (tail !== undefined) {
      throw new TypeError(`Cannot call the platform: community ${describe(community.name)}'s ${tail}`);
    }
    return {
      fetch: fetchFn,
      timeout,
      community,
      credentials,
      // The community's stored tokens, renewed into the community: shared with other processes on the same KV.
      lease: given.accessToken || given.tokenPersistenceFunction
        ? undefined
        : { kv, tenantId: community.tenantId, ms: timeout + LEASE_MARGIN_MS },
      onRenew: async (tokens: TokenPair) => {
        if (given.tokenPersistenceFunction) {
          await given.tokenPersistenceFunction({ ...tokens }, community);
        } else {
          await communities.storeTokens(community.tenantId, tokens);
        }
      },
    };
  }

  async function register(
    ...args: [RegisterOptions] | Parameters<typeof positional>
  ): Promise<RegistrationResponse> {
    const optionsForm = typeof args[0] === "object" && args[0] !== null;
    const opts = optionsForm
      ? { ...(args[0] as RegisterOptions) }
      : positional(...(args as Parameters<typeof positional>));
    // Checked and sent as one copy: an array whose items change between two reads (a Proxy, a getter) cannot send
    // events that were never checked.
    if (Array.isArray(opts.events)) opts.events = [...opts.events];
    // Both forms send the same body: an object given as null is left out (SPEC.md 2.3: a string when present).
    if (opts.object === null) opts.object = undefined;
    validateRegistration(opts, optionsForm);
    const community = await communities.findByName(opts.community);
    if (community === null) {
      // SPEC.md 4.2 rule 2 and section 7: an object, its words, then the name.
      throw { error: `no such community exists: ${opts.community}` };
    }
    const credentials = credentialsFor(community, opts, "Creating the community webhook");
    return await platformOperation("register", () => registerOn(community, credentials, opts), community.name);
  }

  /** register() once its arguments and community are known: the pending entry, the POST, the record. */
  async function registerOn(
    community: Community,
    credentials: Credentials,
    opts: RegisterOptions,
  ): Promise<RegistrationResponse> {
    const ctx = contextFor(community, credentials, opts);

    const pending: PendingRegistration = {
      id: newId(),
      tenantId: community.tenantId,
      community: community.name,
      events: [...opts.events],
      ...(opts.object ? { object: opts.object } : {}),
      callback: opts.callback,
      startedAt: Date.now(),
    };
    const pendingAt = pendingKey(community.tenantId, pending.id);
    // Best effort: a store that cannot take the pending entry will fail the
    // save too, and a failed save takes the hook back on the platform.
    await withLockRetry(() => kv.set(pendingAt, pending)).catch(() => {});

    let answer;
    try {
      // SPEC.md 4.2 rule 5: the body is { events, object, callback }; an
      // absent object is left out.
      answer = await platformRequest(ctx, "POST", platformUrl(community, "/api/core/v3/webhooks"), {
        events: opts.events,
        object: opts.object,
        callback: opts.callback,
      });
    } catch (error) {
      // A clean failure clears the pending entry. When the platform may have
      // created the hook all the same (a time-out, a connection lost mid-way,
      // an unreadable answer: `uncertain`), the entry stays for reconcile().
      if ((error as { uncertain?: unknown } | null)?.uncertain !== true) {
        await withLockRetry(() => kv.delete(pendingAt)).catch(() => {});
      }
      throw error;
    }
    const entity = entityOf(answer.body, answer.status, platformUrl(community, "/api/core/v3/webhooks"));
    const response: RegistrationResponse = { status: answer.status, headers: answer.headers, entity };
    const record: Webhook = { id: newId(), tenantId: community.tenantId, entity };
    try {
      const ref = selfRef(entity);
      await writeRecord(kv, record, async (op) => {
        const entry = await kv.get(pendingAt);
        // reconcile() adopted the hook while this call ran past staleAfter:
        // its record is there already, a second one would be a duplicate.
        if (entry.value === null && ref !== undefined && (await findByWebhookURL(ref)).length > 0) return false;
        op.check(entry).delete(pendingAt);
        return true;
      });
    } catch (saveError) {
      // The platform has the hook but we could not keep track of it: take it
      // back so that no orphan is left, then report the save error.
      const deleted = await deleteOnPlatform(ctx, community, entity).then(() => true, () => false);
      if (deleted) await withLockRetry(() => kv.delete(pendingAt)).catch(() => {});
      throw saveError;
    }
    return response;
  }

  function update(webhook: Webhook | string, changes: WebhookChanges, options?: CredentialOptions | null) {
    return updateHook({ kv, communities, findByID, credentialsFor, contextFor }, webhook, changes, options);
  }

  return { credentialsFor, contextFor, register, update };
}

export function positional(
  jiveCommunity: string,
  events: string[],
  object: string | undefined | null,
  webhookCallbackURL: string,
  accessToken?: string | null,
  refreshToken?: string | null,
  tokenPersistenceFunction?: TokenPersistenceFunction | null,
): RegisterOptions {
  return {
    community: jiveCommunity,
    events,
    object: object ?? undefined,
    callback: webhookCallbackURL,
    accessToken: accessToken ?? undefined,
    refreshToken: refreshToken ?? undefined,
    tokenPersistenceFunction: tokenPersistenceFunction ?? undefined,
  };
}
