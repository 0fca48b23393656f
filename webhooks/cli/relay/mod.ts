// The relay's commands of the command line: `listen`, which forwards to a URL
// on this machine while it runs, and the `relay` commands, for operators of a
// relay run in their own service or the console: destinations added, listed,
// enabled, disabled or removed, dead letters and an entry's attempts listed,
// and dead letters sent again (docs/cli.md).

export { addDestination } from "./_add.ts";
export { listen } from "./_listen.ts";
export { listDeadLetters, listDestinations } from "./_lists.ts";
export { listAttempts, redeliver } from "./_entries.ts";
export { removeDestination, setEnabled } from "./_change.ts";
