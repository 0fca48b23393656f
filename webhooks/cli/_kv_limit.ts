// A time limit on each operation of a KV Connect KV (`--kv` a URL). Deno's
// remote client waits, and retries, for good when its server is lost (killed,
// or no longer answering): a command in a script hung until Ctrl-C. Each
// read, write, list page and atomic commit that has not answered within the
// limit (KV_TIMEOUT_SECONDS, default 30 s) now fails the command, naming the
// KV's origin (never its access token, user info or path). The limit is on
// one operation, not the command: `receive` and `listen` run as long as the
// KV answers, and a watch (idle while nothing changes) has none. A write that
// never answered may still have landed (each is atomic: all or nothing), and
// the message says so. A failure of the client itself (a token refused) is
// said as the KV's, naming its origin.

/** The default limit on one KV Connect operation, in seconds. */
export const KV_TIMEOUT_DEFAULT_SECONDS = 30;

/** The largest limit taken, in seconds (a day): setTimeout's own ends near 24.8 days. */
const KV_TIMEOUT_MAX_SECONDS = 86_400;

/** Whether `path` names a KV Connect server rather than a file or `:memory:`. */
export function isKvConnect(path: string): boolean {
  return /^https?:\/\//i.test(path.trim());
}

/**
 * A KV Connect URL without its user info, as it is given to Deno: KV Connect
 * authenticates with DENO_KV_ACCESS_TOKEN alone (a Bearer token, user info
 * unused), and Deno's client prints the URL it calls on stderr at each retry,
 * out of the reach of the CLI's own blotting.
 */
export function withoutUserInfo(url: string): string {
  const parsed = URL.parse(url.trim());
  if (parsed === null || (parsed.username === "" && parsed.password === "")) return url;
  parsed.username = "";
  parsed.password = "";
  return parsed.href;
}

/**
 * The limit in seconds from KV_TIMEOUT_SECONDS (`raw`), the default when unset
 * or empty; a string naming what is wrong when it is no number of seconds
 * above 0 and up to a day.
 */
export function kvTimeoutSeconds(raw: string | undefined): number | string {
  if (raw === undefined || raw.trim() === "") return KV_TIMEOUT_DEFAULT_SECONDS;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(seconds > 0 && seconds <= KV_TIMEOUT_MAX_SECONDS)) {
    return `KV_TIMEOUT_SECONDS must be a number of seconds above 0 and up to ${
      KV_TIMEOUT_MAX_SECONDS.toLocaleString("en-US")
    }, got '${raw}'`;
  }
  return seconds;
}

/** A KV operation that did not answer within the limit. */
export class KvTimeoutError extends Error {
  /** @param message what did not answer, and what may have come of it */
  constructor(message: string) {
    super(message);
    this.name = "KvTimeoutError";
  }
}

/** `promise`, or a {@linkcode KvTimeoutError} saying `message` when it has not settled within `ms`. */
export function withinLimit<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KvTimeoutError(message)), ms);
  });
  // Raced, so a late rejection of `promise` (the client giving up after all) is handled, not unhandled.
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The limit of a KV Connect KV: its length and the origin its messages name. */
export interface KvLimit {
  seconds: number;
  /** The URL's origin (`https://kv.example`): no user info, path or token. */
  origin: string;
}

/** An operation held to the limit, its failure named as the KV's; `message` says it did not answer. */
type Held = <T>(promise: Promise<T>, message: string) => Promise<T>;

/** What the command is told when an operation did not answer. */
function lateMessage(limit: KvLimit, write: boolean): string {
  const late = `The KV at '${limit.origin}' did not answer within ${limit.seconds} s (KV_TIMEOUT_SECONDS)`;
  return write
    ? `${late} to a write, which may have been stored (each write is all or nothing): check before running the command again`
    : `${late} to a read`;
}

/**
 * `promise`, its failure from the KV Connect client itself (a token refused,
 * another database behind the URL) said as the KV's: Deno's words name
 * neither the KV nor, for the metadata exchange, any URL. Other failures (a
 * value too large, say) are left as they are, for the commands to word.
 */
function namingKv<T>(promise: Promise<T>, origin: string): Promise<T> {
  return promise.catch((error) => {
    if (error instanceof Error && /^(Failed to fetch metadata|KV Connect failed)\b/.test(error.message)) {
      throw new Error(`The KV at '${origin}' answered with an error: ${error.message}`, { cause: error });
    }
    throw error;
  });
}

/** A list iterator whose every page (each `next()`) is held to the limit; its `cursor` is the iterator's own. */
function limitedList<T>(iter: Deno.KvListIterator<T>, held: Held, message: string): Deno.KvListIterator<T> {
  const limited = {
    get cursor(): string {
      return iter.cursor;
    },
    next: () => held(iter.next(), message),
    [Symbol.asyncIterator]() {
      return limited;
    },
  };
  return limited as unknown as Deno.KvListIterator<T>;
}

/** An atomic operation whose `commit()` is held to the limit; every other method chains on it as on the original. */
function limitedAtomic(atomic: Deno.AtomicOperation, held: Held, message: string): Deno.AtomicOperation {
  const proxy: Deno.AtomicOperation = new Proxy(atomic, {
    get(target, prop) {
      if (prop === "commit") return () => held(target.commit(), message);
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}

/**
 * `kv` with each operation held to `limit`: `get`, `getMany` and each page of
 * `list` as reads; `set`, `delete`, `enqueue` and an atomic `commit()` as
 * writes. `watch`, `listenQueue` and `close` are the KV's own.
 */
export function limitedKv(kv: Deno.Kv, limit: KvLimit): Deno.Kv {
  const held: Held = (promise, message) => withinLimit(namingKv(promise, limit.origin), limit.seconds * 1000, message);
  const read = lateMessage(limit, false);
  const write = lateMessage(limit, true);
  const own: Record<PropertyKey, unknown> = {
    get: (...args: Parameters<Deno.Kv["get"]>) => held(kv.get(...args), read),
    getMany: (...args: Parameters<Deno.Kv["getMany"]>) => held(kv.getMany(...args), read),
    list: (...args: Parameters<Deno.Kv["list"]>) => limitedList(kv.list(...args), held, read),
    set: (...args: Parameters<Deno.Kv["set"]>) => held(kv.set(...args), write),
    delete: (...args: Parameters<Deno.Kv["delete"]>) => held(kv.delete(...args), write),
    enqueue: (...args: Parameters<Deno.Kv["enqueue"]>) => held(kv.enqueue(...args), write),
    atomic: () => limitedAtomic(kv.atomic(), held, write),
  };
  return new Proxy(kv, {
    get(target, prop) {
      if (Object.hasOwn(own, prop)) return own[prop];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
