// What a refused "Forward to" add says (forwarding.tsx): the console's framing, once, then what is wrong.

/** The console's own framing of every refused add. */
const REFUSED = "No destination was added";

/**
 * The page's error for an add the relay refused with `message`: the relay frames its refusals for a caller of its API
 * ("Cannot add destination: ..."), which after the console's framing said the same thing twice, so that frame is
 * dropped; and the relay names its option where the console's setting, read at start, is what a user can change.
 */
export function addRefusal(message: string): string {
  const reason = message
    .replace(/^Cannot add destination: /, "")
    .replace(
      "allowPrivateNetwork allows it",
      "the console's ALLOW_PRIVATE_NETWORK=1 allows it (set when the console starts: start it again with it)",
    );
  return `${REFUSED}: ${reason}`;
}
