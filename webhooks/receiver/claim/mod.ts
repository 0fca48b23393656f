/**
 * The receiver's replay claims: a verified header is claimed per hook it
 * names, pending while `onPostback` runs (`_claim.ts`) and marked done in
 * commits that marks answered at the same time share (`_claim_done.ts`).
 *
 * @module
 */

export {
  claim,
  claimOf,
  DONE_BYTES,
  type HeldClaim,
  judge,
  keepHeld,
  MAX_COMMIT_CHECKS,
  maxClaimHooks,
  type NotClaimed,
  release,
  replayKey,
} from "./_claim.ts";
export { finish } from "./_claim_done.ts";
