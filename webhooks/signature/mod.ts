/**
 * The platform's `JiveEXTN` signature: signing and verifying the header
 * (public: `signJiveExtn`, `verifyJiveExtn`), its parser and window checks
 * for the receiver, and a community's previous secret during a rotation.
 *
 * @module
 */

export * from "./jive_extn.ts";
export {
  checkSignature,
  checkTime,
  checkWindow,
  DEFAULT_MAX_AGE_MS,
  DEFAULT_MAX_FUTURE_MS,
  type ParsedJiveExtn,
  parseJiveExtn,
} from "./_jive_extn.ts";
export {
  PREVIOUS_SECRET_KEEP_MS,
  type PreviousSecret,
  readRotation,
  rotationOf,
  verifyingKey,
} from "./_secret_rotation.ts";
