// The command line's grammar as data: every command with its flags, usage
// line and examples, and every flag's parseArgs spec (parsed in _args.ts).

/** A flag's parseArgs spec. */
export type FlagSpec = { type: "string" | "boolean"; short?: string };

/** Flags every command takes. */
export const GLOBAL: Record<string, FlagSpec> = {
  kv: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

const SECRETS = ["access-token", "refresh-token"];

/** A command: its words, positional arguments, flags, usage line and examples. */
export interface CommandSpec {
  words: string[];
  args: string[];
  /** The last argument may be given more than once (`relay redeliver ID [ID...]`). */
  more?: boolean;
  flags: string[];
  required?: string[];
  usage: string;
  examples: string[];
}

/** Every command: its words, positional arguments, flags, usage line and examples. */
export const COMMANDS: CommandSpec[] = [
  {
    words: ["communities", "list"],
    args: [],
    flags: [],
    usage: "communities list",
    examples: ["deno task cli communities list --json"],
  },
  {
    words: ["communities", "show"],
    args: ["NAME"],
    flags: [],
    usage: "communities show NAME",
    examples: ["deno task cli communities show Acme"],
  },
  {
    words: ["communities", "add"],
    args: [],
    flags: ["name", "tenant", "base-url", "client-id", "client-secret", ...SECRETS],
    required: ["name", "tenant", "base-url"],
    usage:
      "communities add --name NAME --tenant ID --base-url URL [--client-id ID] [--client-secret S] [--access-token T] [--refresh-token T]",
    examples: [
      "CLIENT_SECRET=... ACCESS_TOKEN=... deno task cli communities add --name Acme --tenant t1 --base-url https://acme.example --client-id c1",
    ],
  },
  {
    words: ["communities", "remove"],
    args: ["NAME"],
    flags: [],
    usage: "communities remove NAME",
    examples: ["deno task cli communities remove Acme"],
  },
  {
    words: ["communities", "revoke-previous-secret"],
    args: ["NAME"],
    flags: [],
    usage: "communities revoke-previous-secret NAME",
    examples: [
      "CLIENT_SECRET=$NEW deno task cli communities add --name Acme --tenant t1 --base-url https://c.example",
      "deno task cli communities revoke-previous-secret Acme   # the old secret stops verifying now",
    ],
  },
  {
    words: ["hooks", "list"],
    args: [],
    flags: ["tenant"],
    usage: "hooks list [--tenant ID]",
    examples: ["deno task cli hooks list --tenant t1", "deno task cli hooks list --json > hooks.json"],
  },
  {
    words: ["hooks", "find"],
    args: [],
    flags: ["url", "id"],
    usage: "hooks find --url URL | --id ID",
    examples: ["deno task cli hooks find --url https://acme.example/api/core/v3/webhooks/7"],
  },
  {
    words: ["hooks", "register"],
    args: [],
    flags: ["community", "events", "object", "callback", "again", ...SECRETS],
    required: ["community", "events", "callback"],
    usage: "hooks register --community NAME --events a,b [--object URL] --callback URL [--again]",
    examples: [
      "deno task cli hooks register --community Acme --events document,discussion --object https://acme.example/api/core/v3/places/3 --callback https://me.example/hooks/1",
      "deno task cli hooks register --community Acme --events user_account --callback https://me.example/hooks/2 --again   # though a registration of it did not finish",
    ],
  },
  {
    words: ["hooks", "update"],
    args: ["ID"],
    flags: ["events", "object", "no-object", "callback", "enable", "disable", ...SECRETS],
    usage: "hooks update ID [--events a,b] [--object URL | --no-object] [--callback URL] [--enable | --disable]",
    examples: [
      "deno task cli hooks update 01J9Z3W6X4ABCDEF --callback https://new.example/hooks/1",
      "deno task cli hooks update 01J9Z3W6X4ABCDEF --disable   # the platform posts nothing to it until --enable",
    ],
  },
  {
    words: ["hooks", "unregister"],
    args: ["ID"],
    flags: SECRETS,
    usage: "hooks unregister ID",
    examples: ["deno task cli hooks unregister 01J9Z3W6X4ABCDEF"],
  },
  {
    words: ["reconcile"],
    args: ["NAME"],
    flags: ["fix", "delete-unknown", ...SECRETS],
    usage: "reconcile NAME [--fix] [--delete-unknown]",
    examples: ["deno task cli reconcile Acme", "deno task cli reconcile Acme --fix --json"],
  },
  {
    words: ["receive"],
    args: [],
    flags: ["port", "hostname"],
    usage: "receive [--port N] [--hostname H]",
    examples: ["deno task cli receive --port 8080 | tee postbacks.jsonl"],
  },
  {
    words: ["listen"],
    args: [],
    flags: ["forward-to", "hook", "secret", "print-secret"],
    required: ["forward-to"],
    usage: "listen --forward-to URL [--hook ID,...] [--print-secret]",
    examples: [
      "WEBHOOK_SECRET=whsec_... deno task cli listen --forward-to http://localhost:3000/webhooks",
      "deno task cli listen --forward-to http://localhost:3000/webhooks --print-secret",
      "KV_PATH=https://kv.example.com DENO_KV_ACCESS_TOKEN=... deno task cli listen --forward-to http://localhost:3000/webhooks --hook 01J...",
    ],
  },
  {
    words: ["relay", "destinations"],
    args: [],
    flags: [],
    usage: "relay destinations",
    examples: ["deno task cli relay destinations", "deno task cli relay destinations --json"],
  },
  {
    words: ["relay", "add"],
    args: [],
    flags: ["url", "hook", "secret", "print-secret", "allow-private-network"],
    required: ["url"],
    usage: "relay add --url URL [--hook ID,...] [--allow-private-network] [--print-secret]",
    examples: [
      "WEBHOOK_SECRET=whsec_... deno task cli relay add --url https://app.example/webhooks --hook 01J...",
      "deno task cli relay add --url https://app.example/webhooks --print-secret   # every hook; a secret generated",
    ],
  },
  {
    words: ["relay", "dead-letters"],
    args: [],
    flags: ["destination"],
    usage: "relay dead-letters [--destination ID]",
    examples: [
      "deno task cli relay dead-letters   # newest first",
      "deno task cli relay dead-letters --destination 01J9Z3W6X4ABCDEFGHJKMNPQRS --json > dead.json",
    ],
  },
  {
    words: ["relay", "attempts"],
    args: ["ENTRY_ID"],
    flags: [],
    usage: "relay attempts ENTRY_ID",
    examples: [
      "deno task cli relay attempts msg_01J9Z3W6X4ABCDEFGHJKMNPQRS",
      "deno task cli relay attempts msg_01J9Z3W6X4ABCDEFGHJKMNPQRS --json   # with the first 1 KiB of each answer",
    ],
  },
  {
    words: ["relay", "redeliver"],
    args: ["ENTRY_ID"],
    more: true,
    flags: [],
    usage: "relay redeliver ENTRY_ID [ENTRY_ID...]",
    examples: [
      "deno task cli relay redeliver msg_01J9Z3W6X4ABCDEFGHJKMNPQRS",
      "deno task -q cli relay dead-letters --json | jq -r '.[].id' | xargs -r deno task -q cli relay redeliver",
    ],
  },
  {
    words: ["relay", "enable"],
    args: ["DESTINATION_ID"],
    flags: [],
    usage: "relay enable DESTINATION_ID",
    examples: ["deno task cli relay enable 01J9Z3W6X4ABCDEFGHJKMNPQRS   # its paused entries are due again"],
  },
  {
    words: ["relay", "disable"],
    args: ["DESTINATION_ID"],
    flags: [],
    usage: "relay disable DESTINATION_ID",
    examples: ["deno task cli relay disable 01J9Z3W6X4ABCDEFGHJKMNPQRS   # pauses it: what waits is kept"],
  },
  {
    words: ["relay", "remove"],
    args: ["DESTINATION_ID"],
    flags: [],
    usage: "relay remove DESTINATION_ID",
    examples: ["deno task cli relay remove 01J9Z3W6X4ABCDEFGHJKMNPQRS   # with its waiting entries and dead letters"],
  },
  {
    words: ["migrate"],
    args: [],
    flags: [],
    usage: "migrate",
    examples: ["deno task cli migrate --kv ./webhooks.kv"],
  },
];

/** Every flag of every command. */
export const FLAGS: Record<string, FlagSpec> = {
  ...GLOBAL,
  name: { type: "string" },
  tenant: { type: "string" },
  "base-url": { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  "access-token": { type: "string" },
  "refresh-token": { type: "string" },
  url: { type: "string" },
  id: { type: "string" },
  community: { type: "string" },
  events: { type: "string" },
  object: { type: "string" },
  callback: { type: "string" },
  again: { type: "boolean" },
  enable: { type: "boolean" },
  "no-object": { type: "boolean" },
  disable: { type: "boolean" },
  fix: { type: "boolean" },
  "delete-unknown": { type: "boolean" },
  port: { type: "string" },
  hostname: { type: "string" },
  "forward-to": { type: "string" },
  hook: { type: "string" },
  secret: { type: "string" },
  "print-secret": { type: "boolean" },
  "allow-private-network": { type: "boolean" },
  destination: { type: "string" },
};
