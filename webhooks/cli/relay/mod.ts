// The `relay` commands of the command line, for operators of a relay run in
// their own service: its destinations, dead letters and an entry's attempts
// listed, enabled, disabled or removed, and dead letters sent again
// (docs/cli.md).

export { listDeadLetters, listDestinations } from "./_lists.ts";
export { listAttempts, redeliver } from "./_entries.ts";
export { removeDestination, setEnabled } from "./_change.ts";
