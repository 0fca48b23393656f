/**
 * The community store (collection `community`), reached as
 * `createWebhooks(kv).communities`.
 *
 * @module
 */

import type { Community, Page, SecretRotation, TokenPair } from "../types.ts";
import type { ListOptions } from "../options.ts";

/**
 * The community store. `name` and `tenantId` are each unique; the record is
 * keyed by `tenantId`.
 */
export interface Communities {
  /**
   * Stores a community, or replaces the one with the same `tenantId`.
   *
   * When it replaces or removes the stored client secret, the stored one
   * becomes the previous secret, in the same atomic operation: receivers
   * still accept postbacks signed with it for 6 min 30 s (the default
   * signature window of 5 minutes back and 30 s ahead, and a minute for
   * clocks), so those signed just before the change are not refused. Only
   * the last replaced secret is kept; see {@linkcode Communities.secretRotation}.
   *
   * A rotation is a check-and-set. The save reads the stored record and
   * commits checked against it; when another write got in first, it reads
   * again. If that read finds the client secret changed since this save
   * first read it (another save rotated it meanwhile), and this record would
   * replace it again (another secret, the one first read, or none), the save
   * is refused with a `ConflictError` whose message says "the secret changed
   * meanwhile", and nothing is stored: of two rotations at once one wins,
   * and the previous secret stays the one both replaced. Two saves setting
   * the same new secret both succeed.
   *
   * @param community `{ name, tenantId, baseUrl, clientId?, clientSecret?, oauth? }`.
   * @returns The store result.
   * @throws {TypeError} When a field is missing or of the wrong type, or `name` or `tenantId` holds a lone
   *   surrogate (KV writes one as U+FFFD, so it would key like another's).
   * @throws {ConflictError} When another tenant already uses the name, or the
   *   secret changed meanwhile (see above).
   * @throws {RangeError} When the record is too large for one KV value (64 KiB): the message names the
   *   largest field (`Cannot save community: 'clientSecret' is too long: ...`), never its value; nothing is stored.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * await assert.rejects(() => communities.save({ name: "Acme", tenantId: "t2", baseUrl: "https://d.example" }));
   * kv.close();
   * ```
   */
  save(community: Community): Promise<Deno.KvCommitResult>;
  /**
   * Changes a stored community in one atomic step: `change` gets a copy of
   * the record as it is now and returns the record to store. When another
   * write gets in first (a token renewal, another edit), `change` runs again
   * on the newer record, so nothing that write stored is lost; a community
   * removed meanwhile stays removed. A changed secret rotates as with
   * {@linkcode Communities.save}, and is a check-and-set as there: when the
   * secret changed since the first read and the newer record's secret would
   * be replaced, a `ConflictError` ("the secret changed meanwhile") is thrown
   * and nothing is stored.
   *
   * @param tenantId The community's tenant id.
   * @param change Makes the new record from the current one; it may not change `tenantId`.
   * @returns The stored record, or `null` when no community has this tenant id (nothing is stored).
   * @throws {TypeError} When `tenantId` is not a non-empty string, `change` is not a function, or the record it
   * returns is not a valid community or has another tenant id.
   * @throws {ConflictError} When the new name is another tenant's, or the secret changed meanwhile.
   * @throws {RangeError} When the record it returns is too large for one KV value (64 KiB): the message names the
   *   largest field (`Cannot save community: 'clientSecret' is too long: ...`), never its value; nothing is stored.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * const renamed = await communities.update("t1", (current) => ({ ...current, name: "Acme Inc." }));
   * assert.equal(renamed?.name, "Acme Inc.");
   * assert.equal((await communities.findByName("Acme Inc."))?.tenantId, "t1");
   * assert.equal(await communities.update("t2", (current) => current), null);
   * kv.close();
   * ```
   */
  update(tenantId: string, change: (current: Community) => Community): Promise<Community | null>;
  /**
   * Stores a community only when its tenant id has none yet, in one atomic
   * step checked against that: with {@linkcode Communities.update} for the
   * stored case, an add-or-update that never replaces a community another
   * process stored meanwhile (`save` would, whole).
   *
   * @param community As for {@linkcode Communities.save}.
   * @returns `true` when stored; `false` when the tenant id has a community (nothing is stored).
   * @throws {TypeError} {ConflictError} {RangeError} As {@linkcode Communities.save} does.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * assert.equal(await communities.add({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" }), true);
   * assert.equal(await communities.add({ name: "Other", tenantId: "t1", baseUrl: "https://d.example" }), false);
   * assert.equal((await communities.findByTenantID("t1"))?.name, "Acme");
   * kv.close();
   * ```
   */
  add(community: Community): Promise<boolean>;
  /**
   * Finds a community by its name (SPEC.md's community lookup by name).
   *
   * @param name The community's name.
   * @returns The community, or `null` when none has that name.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal((await communities.findByName("Acme"))?.tenantId, "t1");
   * assert.equal(await communities.findByName("Other"), null);
   * kv.close();
   * ```
   */
  findByName(name: string): Promise<Community | null>;
  /**
   * Finds a community by its tenant id.
   *
   * @param tenantId The community's tenant id.
   * @returns The community, or `null` when none has that tenant id.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal((await communities.findByTenantID("t1"))?.name, "Acme");
   * kv.close();
   * ```
   */
  findByTenantID(tenantId: string): Promise<Community | null>;
  /**
   * Lists communities a page at a time, ordered by tenant id.
   *
   * @param options `cursor` from the previous page (absent, `""` or `null` reads the first page) and `limit`, an
   *   integer from 1 to 1000 (default 100).
   * @returns A page `{ values, cursor }`; `cursor` is `""` on the last page.
   * @throws {TypeError} When `options` is not an object (`null` reads the first page), naming `options`.
   * @throws {TypeError} When `limit` is not a number (`"10"`, `null`), naming `limit`; nothing is read.
   * @throws {RangeError} When `limit` is a number but not an integer from 1 to 1000; nothing is read.
   * @throws {TypeError} When `cursor` is not one that a page of this list gave (nothing is read); a
   *   cursor of an earlier version, without its tag, is refused too: start again from the first page.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * const page = await communities.list({ limit: 10 });
   * assert.deepEqual(page.values.map((c) => c.name), ["Acme"]);
   * assert.equal(page.cursor, "");
   * kv.close();
   * ```
   */
  list(options?: ListOptions): Promise<Page<Community>>;
  /**
   * Deletes a community. Its webhook records are kept.
   *
   * @param tenantId The community's tenant id.
   * @returns `true` when a community was deleted, `false` when none had that tenant id.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal(await communities.remove("t1"), true);
   * assert.equal(await communities.findByName("Acme"), null);
   * kv.close();
   * ```
   */
  remove(tenantId: string): Promise<boolean>;
  /**
   * Stores renewed tokens on the community with `renewedAt` set to now.
   *
   * @param tenantId The community's tenant id.
   * @param tokens The new token pair.
   * @returns `true` when stored, `false` when no community has that tenant id.
   * @throws {TypeError} When `tenantId` is not a non-empty string, or `tokens` has no non-empty `access_token`
   * or a `refresh_token` that is not a string; nothing is stored.
   * @throws {RangeError} When the community with these tokens is too large for one KV value (64 KiB); nothing is
   *   stored, and the message names the community, never the tokens.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * await assert.rejects(() => communities.storeTokens("t1", {} as never), TypeError);
   * await communities.storeTokens("t1", { access_token: "a2", refresh_token: "r2" });
   * assert.equal((await communities.findByTenantID("t1"))?.oauth?.access_token, "a2");
   * kv.close();
   * ```
   */
  storeTokens(tenantId: string, tokens: TokenPair): Promise<boolean>;
  /**
   * The last rotation of a community's client secret, never the secret
   * itself. It is returned as stored: the previous secret verifies while
   * `validUntil` has not passed (compare it with your clock); the entry
   * expires from KV a minute after that, and goes with the community.
   *
   * @param tenantId The community's tenant id.
   * @returns `{ rotatedAt, validUntil }`, or `null` when no secret of the community was replaced recently.
   * @throws {TypeError} When `tenantId` is not a non-empty string.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example", clientSecret: btoa("old secret") };
   * await communities.save(acme);
   * assert.equal(await communities.secretRotation("t1"), null);
   * await communities.save({ ...acme, clientSecret: btoa("new secret") });
   * const rotation = await communities.secretRotation("t1");
   * assert.ok(rotation && Date.parse(rotation.validUntil) > Date.parse(rotation.rotatedAt));
   * assert.equal(JSON.stringify(rotation).includes(btoa("old secret")), false);
   * kv.close();
   * ```
   */
  secretRotation(tenantId: string): Promise<SecretRotation | null>;
  /**
   * Ends the overlap of the last rotation at once: the previous secret stops
   * verifying now, not at `validUntil`. For a secret that leaked, rotate it
   * (`save` with the new one), then revoke the old. Receivers that verified
   * with it re-read the community on their next such postback and refuse it
   * (`401`).
   *
   * @param tenantId The community's tenant id.
   * @param options `rotatedAt`: revoke only the previous secret of this rotation (as `secretRotation` gave it), so
   *   a request made from what was shown before another rotation refuses nothing (`false`, the newer one kept).
   * @returns `true` when a previous secret was kept and is now gone, else `false`.
   * @throws {TypeError} When `tenantId` is not a non-empty string, or `rotatedAt` is given and not a string.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example", clientSecret: btoa("leaked secret") };
   * await communities.save(acme);
   * await communities.save({ ...acme, clientSecret: btoa("new secret") });
   * assert.equal(await communities.revokePreviousSecret("t1"), true);
   * assert.equal(await communities.secretRotation("t1"), null);
   * assert.equal(await communities.revokePreviousSecret("t1"), false);
   * kv.close();
   * ```
   */
  revokePreviousSecret(tenantId: string, options?: { rotatedAt?: string }): Promise<boolean>;
}
