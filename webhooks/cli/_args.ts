// The command line's grammar: its commands, their flags and usage texts,
// parsed with node:util's parseArgs (strict). Global flags may stand before
// or after the command words.

import { parseArgs } from "node:util";

/** A usage error: exit status 2, with the usage of the command it concerns. */
export class UsageError extends Error {
  /** The usage text to print after the message. */
  usage: string;
  /** @param message what is wrong; @param usage the usage text */
  constructor(message: string, usage: string) {
    super(message);
    this.name = "UsageError";
    this.usage = usage;
  }
}

type FlagSpec = { type: "string" | "boolean"; short?: string };

const GLOBAL: Record<string, FlagSpec> = {
  kv: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

const SECRETS = ["access-token", "refresh-token"];

interface CommandSpec {
  words: string[];
  args: string[];
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
    flags: ["community", "events", "object", "callback", ...SECRETS],
    required: ["community", "events", "callback"],
    usage: "hooks register --community NAME --events a,b [--object URL] --callback URL",
    examples: [
      "deno task cli hooks register --community Acme --events document,discussion --object https://acme.example/api/core/v3/places/3 --callback https://me.example/hooks/1",
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
    words: ["migrate"],
    args: [],
    flags: [],
    usage: "migrate",
    examples: ["deno task cli migrate --kv ./webhooks.kv"],
  },
];

const FLAGS: Record<string, FlagSpec> = {
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
  fix: { type: "boolean" },
  "delete-unknown": { type: "boolean" },
  port: { type: "string" },
  hostname: { type: "string" },
  "forward-to": { type: "string" },
  hook: { type: "string" },
  secret: { type: "string" },
  "print-secret": { type: "boolean" },
};

const GLOBAL_USAGE = "[--kv PATH_OR_URL] [--json] [--help]";

/** The top-level usage: every command. */
export function topUsage(): string {
  return [
    `Usage: deno task cli <command> ${GLOBAL_USAGE}`,
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.usage}`),
    "",
    "Global flags:",
    "  --kv PATH_OR_URL  the Deno KV to use (default $KV_PATH, else ./webhooks.kv)",
    "  --json            print one JSON document on stdout instead of a table",
    "  --help, -h        this help, or a command's (deno task cli hooks list --help)",
    "",
    "Secrets come from flags or, better (deno task echoes its arguments), from the environment:",
    "CLIENT_SECRET, ACCESS_TOKEN, REFRESH_TOKEN. They are never printed.",
    "Exit status: 0 success, 1 the operation failed, 2 usage error.",
  ].join("\n");
}

/** The usage of one command, with its examples. */
export function commandUsage(spec: CommandSpec): string {
  return [
    `Usage: deno task cli ${spec.usage} ${GLOBAL_USAGE}`,
    "",
    "Examples:",
    ...spec.examples.map((e) => `  ${e}`),
  ].join("\n");
}

/** The usage of a group of commands (`hooks`, `communities`): its commands. */
function groupUsage(word: string, commands: CommandSpec[]): string {
  return [
    `Usage: deno task cli ${word} <command> ${GLOBAL_USAGE}`,
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.usage}`),
    "",
    `One command's help and examples: deno task cli ${commands[0].words.join(" ")} --help`,
  ].join("\n");
}

/** A parsed command line. */
export interface Parsed {
  /** The command, or `null` for a help page (`help`). */
  command: CommandSpec | null;
  /** With no command: the help to print (the top-level usage, or a group's). */
  help?: string;
  /** Positional arguments after the command words. */
  args: string[];
  /** Flag values by name. */
  flags: Record<string, string | boolean | undefined>;
}

/** Parses `argv`; throws a {@linkcode UsageError} when it does not fit a command. */
export function parse(argv: string[]): Parsed {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: true }));
  } catch (error) {
    // The first sentence only ("Unknown option '--x'"), with the usage of the command it was given to.
    const message = (error as Error).message.split(/\. (?=[A-Z])/)[0].replace(/\.$/, "");
    const words = parseArgs({ args: argv, options: FLAGS, strict: false, allowPositionals: true }).positionals;
    const command = COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
    throw new UsageError(message, command ? commandUsage(command) : topUsage());
  }
  if (positionals.length === 0) {
    if (values.help) return { command: null, help: topUsage(), args: [], flags: values };
    throw new UsageError("No command given", topUsage());
  }
  const command = COMMANDS.find((c) => c.words.every((w, i) => positionals[i] === w));
  if (!command) {
    // A group's word alone (`hooks`): its commands, as help or as the usage of a missing command.
    const group = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === positionals[0]);
    if (group.length > 0 && positionals.length === 1) {
      const usage = groupUsage(positionals[0], group);
      if (values.help) return { command: null, help: usage, args: [], flags: values };
      throw new UsageError(`'${positionals[0]}' needs a command: ${group.map((c) => c.words[1]).join(", ")}`, usage);
    }
    throw new UsageError(
      `Unknown command '${positionals.slice(0, 2).join(" ")}'`,
      group.length > 0 ? groupUsage(positionals[0], group) : topUsage(),
    );
  }
  const usage = commandUsage(command);
  if (values.help) return { command, args: [], flags: values };
  const args = positionals.slice(command.words.length);
  if (args.length !== command.args.length) {
    throw new UsageError(
      `'${command.words.join(" ")}' takes ${command.args.length ? command.args.join(" ") : "no arguments"}, got ${
        args.length ? args.map((a) => `'${a}'`).join(" ") : "none"
      }`,
      usage,
    );
  }
  for (const name of Object.keys(values)) {
    if (!(name in GLOBAL) && !command.flags.includes(name)) {
      throw new UsageError(`'${command.words.join(" ")}' has no option '--${name}'`, usage);
    }
  }
  for (const name of command.required ?? []) {
    if (typeof values[name] !== "string" || values[name] === "") {
      throw new UsageError(`'${command.words.join(" ")}' needs --${name}`, usage);
    }
  }
  // A flag given with no value (`--tenant=`, `--kv ""`) is a mistake in the command line, not a value to try.
  if (values.kv === "") throw new UsageError("--kv needs a path or a URL, got an empty one", usage);
  for (const [name, value] of Object.entries(values)) {
    if (value === "") throw new UsageError(`--${name} needs a value, got an empty one`, usage);
  }
  return { command, args, flags: values };
}
