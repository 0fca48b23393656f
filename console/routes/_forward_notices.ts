// The notices of a hook's "Forward to" page (forwarding.tsx), by the `?notice=` code its actions redirect with.

/** A notice by its code. */
export const NOTICES: Record<string, string> = {
  added: "The destination is added.",
  enabled: "The destination is enabled.",
  disabled:
    "The destination is disabled: nothing is sent to it; what waits for it is kept and sent once it is enabled, " +
    "and postbacks that arrive meanwhile are not forwarded to it.",
  removed: "The destination is removed.",
  unlinked:
    "This hook's postbacks are no longer forwarded there; the destination still forwards the postbacks of the " +
    "other hooks it serves.",
  redelivered: "The dead letter is back in the outbox: a worker sends it again.",
  gone: "That dead letter was already sent again or is gone.",
};
