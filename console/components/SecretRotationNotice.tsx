/**
 * A community's client-secret rotation as its page shows it, while the
 * previous secret is still accepted: when the secret was replaced, and until
 * when postbacks signed with the previous one verify. Never a secret.
 *
 * @module
 */

import type { VNode } from "preact";
import type { SecretRotation } from "../../webhooks/mod.ts";
import { ago, utcText } from "./LocalTime.tsx";

/** Props of {@linkcode SecretRotationNotice}. */
export interface SecretRotationNoticeProps {
  /** The rotation as `communities.secretRotation` reads it, or `null`. */
  rotation: SecretRotation | null;
  /** The present (ms since the epoch). */
  now: number;
  /** Where a form may end the overlap at once (`POST`, with this CSRF token); no form without it. */
  revoke?: { action: string; csrf: string };
}

/**
 * The client secret's last rotation while its previous secret is still
 * accepted (by `now`), else nothing: when it was replaced and until when the
 * previous one verifies postbacks. Never a secret.
 *
 * @param props the rotation and the present
 * @returns the notice, or `null` when there is nothing to say
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SecretRotationNotice } from "./SecretRotationNotice.tsx";
 * const rotation = { rotatedAt: "2026-01-01T00:00:00.000Z", validUntil: "2026-01-01T00:06:30.000Z" };
 * assert.notEqual(SecretRotationNotice({ rotation, now: Date.parse(rotation.rotatedAt) + 60_000 }), null);
 * assert.equal(SecretRotationNotice({ rotation, now: Date.parse(rotation.validUntil) }), null);
 * ```
 */
export function SecretRotationNotice({ rotation, now, revoke }: SecretRotationNoticeProps): VNode | null {
  if (!rotation || !(Date.parse(rotation.validUntil) > now)) return null;
  const rotatedAt = Date.parse(rotation.rotatedAt);
  return (
    <>
      <p class="hint" id="secret-rotation">
        Secret rotated{" "}
        {now - rotatedAt < 1_000 ? "just now" : ago(rotatedAt, now)}; the previous secret is accepted until{" "}
        <time dateTime={rotation.validUntil}>{utcText(rotation.validUntil)}</time>, so postbacks signed just before the
        change are not refused.
      </p>
      {revoke && (
        <form method="post" action={revoke.action} id="revoke-previous-secret">
          <input type="hidden" name="_csrf" value={revoke.csrf} />
          {/* The rotation shown: a press after another rotation refuses nothing (not the newer previous secret). */}
          <input type="hidden" name="rotatedAt" value={rotation.rotatedAt} />
          <button type="submit" class="danger">Refuse the previous secret now (it leaked)</button>
        </form>
      )}
    </>
  );
}
