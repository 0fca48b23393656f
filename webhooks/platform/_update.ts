// update(): the platform's PUT of a hook, then its record saved with the
// answer. Two updates of one hook at once (in one process or two) each send
// the whole hook, built from the record they read: the one whose record
// changed meanwhile sends its change again over the newer record, so no
// change is lost and the record holds the hook as the platform last took it.

import { type Communities, writeRecord } from "../store/mod.ts";
import { webhookKey } from "../kv/mod.ts";
import { type Credentials, type PlatformContext, platformRequest } from "./_platform.ts";
import { checkStoredRecord, validateRegistration } from "./_validate.ts";
import { hookUrl } from "./_hook_url.ts";
import { entityOf, eventsList, keepingRefs } from "./_answer.ts";
import { certainFailure, markerFits, markerLifetime, UpdateMarkers } from "./_update_marker.ts";
import { platformOperation } from "../telemetry/mod.ts";
import { describe } from "../_util.ts";
import type { Community, Webhook } from "../types.ts";
import type { CredentialOptions, WebhookChanges } from "../options.ts";

const ACTION = "update webhook";

/** Most PUTs of one update() when other updates keep changing the record in between. */
const MAX_ATTEMPTS = 5;

/** What update() needs of the store and of the platform calls. */
export interface UpdateDeps {
  kv: Deno.Kv;
  communities: Communities;
  findByID: (id: string) => Promise<Webhook | null>;
  credentialsFor: (community: Community, given: CredentialOptions, action: string) => Credentials;
  contextFor: (community: Community, credentials: Credentials, given: CredentialOptions) => PlatformContext;
}

/** The hook as the changes make it from `record`, checked as a registration is. */
function bodyOf(record: Webhook, changes: WebhookChanges, community: Community, given: CredentialOptions) {
  const entity = record.entity ?? {};
  const events = changes.events ?? (eventsList(entity.events) as string[] | undefined);
  const object = changes.object !== undefined ? changes.object ?? undefined : entity.object as string | undefined;
  const callback = changes.callback ?? (entity.callback as string | undefined);
  validateRegistration(
    { community: community.name, events: events!, object, callback: callback!, ...given },
    true,
    ACTION,
  );
  const enabled = changes.enabled ?? (typeof entity.enabled === "boolean" ? entity.enabled : true);
  return { events, object, callback, enabled };
}

/** Updates a hook on the platform, then its record. */
export async function updateHook(
  deps: UpdateDeps,
  webhook: Webhook | string,
  changes: WebhookChanges,
  options?: CredentialOptions | null,
): Promise<Webhook> {
  const { kv, communities, findByID } = deps;
  const given = options ?? {};
  if (typeof given !== "object" || Array.isArray(given)) {
    throw new TypeError(`Cannot ${ACTION}: 'options' must be an object, got ${describe(given)}`);
  }
  if (typeof changes !== "object" || changes === null || Array.isArray(changes)) {
    throw new TypeError(`Cannot ${ACTION}: 'changes' must be an object, got ${describe(changes)}`);
  }
  if (changes.enabled !== undefined && typeof changes.enabled !== "boolean") {
    throw new TypeError(`Cannot ${ACTION}: 'enabled' must be a boolean, got ${describe(changes.enabled)}`);
  }
  let record = typeof webhook === "string" ? await findByID(webhook) : webhook;
  if (typeof webhook === "string" && record === null) {
    throw new Error(`Cannot ${ACTION}: no webhook has the id ${describe(webhook)}`);
  }
  if (typeof webhook === "string") checkStoredRecord(record!, webhook, ACTION);
  const refusal = (given: unknown) =>
    new TypeError(`Cannot ${ACTION}: it must be a record with an entity or its id, got ${describe(given)}`);
  if (typeof record !== "object" || record === null) throw refusal(record);
  // The stored record as read before the PUT. One removed while the PUT runs (by unregister(), say) is not written
  // back: that would bring back the record of a hook that is gone. One changed meanwhile (another update) is not
  // overwritten with an answer the platform may since have replaced.
  const key = typeof record.id === "string" && record.id !== "" ? webhookKey(record.id) : null;
  let read = key === null ? null : await kv.get<Webhook>(key);
  // A record given that another update saved since it was read: the change goes over the stored one, whose hook
  // the platform has, so that update's change is not undone.
  if (read?.value) record = read.value;
  if (typeof record.entity !== "object" || record.entity === null) throw refusal(record);
  // Its marker (set before the PUT) would not fit in a KV key: refused by name before anything is sent. The
  // platform's answer could seldom be stored under such an id either (its self URL indexes it with the id).
  if (key !== null && !markerFits(record.id)) {
    throw new RangeError(
      `Cannot ${ACTION}: 'id' is too long for the KV key of its update marker (the id and a UUID, 2 KiB in all, ` +
        `in UTF-8), got ${describe(record.id)}; save the record under a shorter id (a ULID, as register gives)`,
    );
  }
  const community = await communities.findByTenantID(record.tenantId);
  if (community === null) {
    throw new Error(`Cannot ${ACTION}: no community has the tenantId ${describe(record.tenantId)}`);
  }
  let body = bodyOf(record, changes, community, given);
  const ctx = deps.contextFor(
    community,
    deps.credentialsFor(
      community,
      given,
      "Updating the community webhook",
    ),
    given,
  );
  const url = hookUrl(community, record.entity ?? {}, ACTION);
  return await platformOperation("update", async () => {
    const markers = key === null ? null : new UpdateMarkers(kv, record!.id);
    if (await markers?.look()) {
      // An update died after the platform took its PUT (or one runs now): the record may be older than the hook, and
      // a PUT built on it would send older fields back. This one is built on the hook as the platform has it.
      const answer = await platformRequest(ctx, "GET", url);
      const stored = record!.entity ?? {};
      record = {
        ...record!,
        entity: { ...stored, ...keepingRefs(entityOf(answer.body, answer.status, url, "GET"), stored) },
      };
      body = bodyOf(record, changes, community, given);
    }
    const startedAt = Date.now();
    for (let attempt = 1;; attempt++) {
      const entity = record!.entity ?? {};
      // Before each PUT: an update that sends its change again may outlive its first marker's age limit.
      await markers?.set();
      let answered;
      try {
        const answer = await platformRequest(ctx, "PUT", url, body);
        answered = entityOf(answer.body, answer.status, url, "PUT");
      } catch (error) {
        // Refused for sure, and no earlier PUT of this update went through: the record is as level as it was.
        if (attempt === 1 && certainFailure(error)) await markers?.drop();
        throw error;
      }
      // A platform that answers with the changed fields only leaves out the hook's id and self URL: the record keeps its own.
      const saved: Webhook = { ...record!, entity: keepingRefs(answered, entity) };
      // The stored record as the write found it, when it was not the one read before the PUT.
      let latest: Deno.KvEntryMaybe<Webhook> | null = null;
      let written;
      try {
        written = await writeRecord(kv, saved, (op, current) => {
          if (key === null || read!.value === null || current.versionstamp === read!.versionstamp) {
            // Markers older than a running update's PUT could be (markerLifetime) are of updates that died.
            markers?.clear(op, startedAt - markerLifetime(ctx.timeout));
            return true;
          }
          latest = current;
          return false;
        });
      } catch (error) {
        // The platform took the change and the record cannot: the hook is put back as its record has it.
        const previous = { events: eventsList(entity.events), object: entity.object, callback: entity.callback };
        await platformRequest(ctx, "PUT", url, { ...previous, enabled: entity.enabled ?? true }).catch(() => {});
        throw error;
      }
      if (written !== null) return saved;
      const found = latest as Deno.KvEntryMaybe<Webhook> | null;
      if (!found?.value) throw new Error(`Cannot ${ACTION}: its record ${describe(record!.id)} was removed meanwhile`);
      if (attempt >= MAX_ATTEMPTS) {
        throw new Error(`Cannot ${ACTION}: its record ${describe(record!.id)} kept changing meanwhile, try again`);
      }
      // Another update saved the hook since this one read it: this change again, over the hook as that one left it.
      read = found;
      record = found.value;
      body = bodyOf(record, changes, community, given);
    }
  }, community.name);
}
