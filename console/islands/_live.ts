/**
 * One event stream for every live page of the console in a browser. A
 * browser allows six HTTP/1.1 connections per host: a stream per tab, or
 * one kept open by each page in the back/forward cache, soon leaves none for
 * loading pages. So the tabs elect a leader with a Web Lock; the leader
 * alone holds the `EventSource` of `/deliveries/events` and rebroadcasts
 * what it hears on a `BroadcastChannel`. A page closes its stream, leaves
 * the lead (saying so to the others) and closes its channel on `pagehide`,
 * and comes back on `pageshow`. The lock is only ever asked for if it is
 * free at once, never queued for: a queued request granted as its page goes
 * into the back/forward cache would leave the lead with a frozen page. So a
 * follower asks again when the leader says it leaves, and every few
 * seconds. Where the stream does not open in time, or the browser has no
 * Web Locks (a page not served from a secure origin), the tabs poll.
 *
 * A tab the browser freezes (a background tab on a phone, or under energy
 * saving) keeps what it holds, its lock too, but runs nothing: it leaves the
 * lead on `freeze` and comes back on `resume`. And the leader passes on the
 * stream's `ping` (every 10 s; a network event, which the browser does not
 * throttle as it throttles a background tab's timers) and its polls; a
 * follower that has heard nothing for 25 s polls by itself until the leader
 * is heard again, so no tab says "live" while no update can reach it.
 *
 * @module
 */

import { Timers } from "./_timers.ts";

/** A delivery the stream announced. */
export interface LiveDelivery {
  /** Its id. */
  id: string;
  /** Its webhook record. */
  hookId: string;
  /** Its place in the sequence. */
  seq: number;
}

/** How new deliveries reach this page; `ended`: the session ended (signed out elsewhere, expired), none will. */
export type LiveState = "connecting" | "live" | "polling" | "ended";

/** What a subscriber is told. */
export interface LiveListener {
  /** A delivery arrived; `null`: something may have arrived (a poll, or the page came back): look. */
  onDelivery(delivery: LiveDelivery | null): void;
  /** The way updates arrive changed. */
  onState(state: LiveState): void;
}

const CHANNEL = "cw-deliveries";
const LOCK = "cw-deliveries-stream";
/** A stream that has not opened by then is given up for polling. */
const OPEN_TIMEOUT_MS = 8_000;
/** Time between polls while the stream is out. */
const POLL_MS = 5_000;
/** Time before a polling leader tries the stream again. */
const RETRY_STREAM_MS = 60_000;
/** Time between a follower's checks that some tab leads. */
const FOLLOW_CHECK_MS = 5_000;
/** Silence from the lead after which a follower polls by itself: the stream pings every 10 s, a poll every 5 s. */
const SILENT_LEADER_MS = 25_000;

type Message =
  | { t: "delivery"; d: LiveDelivery | null }
  | { t: "state"; s: LiveState }
  | { t: "hello" }
  | { t: "bye" };

class LiveHub {
  #listeners = new Set<LiveListener>();
  #state: LiveState = "connecting";
  #channel: BroadcastChannel | null = null;
  #check: ReturnType<typeof setInterval> | undefined;
  #release: (() => void) | null = null;
  #leader = false;
  #source: EventSource | null = null;
  #timers = new Timers();
  #running = false;
  /** When this follower last heard from the leader (performance.now). */
  #heard = 0;

  add(listener: LiveListener): () => void {
    this.#listeners.add(listener);
    listener.onState(this.#state);
    if (this.#listeners.size === 1) {
      addEventListener("pagehide", this.#hide);
      addEventListener("pageshow", this.#show);
      document.addEventListener("freeze", this.#hide);
      document.addEventListener("resume", this.#resume);
      this.#start();
    }
    // What arrived between the page's render and now was passed on before this listener heard: look once.
    listener.onDelivery(null);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        removeEventListener("pagehide", this.#hide);
        removeEventListener("pageshow", this.#show);
        document.removeEventListener("freeze", this.#hide);
        document.removeEventListener("resume", this.#resume);
        this.#stop();
      }
    };
  }

  #hide = () => this.#stop();

  #show = (event: PageTransitionEvent) => {
    if (event.persisted) this.#resume();
  };

  #resume = () => {
    if (this.#running) return;
    this.#start();
    this.#emit(null); // what arrived while the page was away
  };

  #start(): void {
    this.#running = true;
    this.#role();
    this.#setState("connecting");
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    if (typeof BroadcastChannel !== "function" || !locks) return this.#poll();
    this.#channel = new BroadcastChannel(CHANNEL);
    this.#channel.onmessage = (e: MessageEvent<Message>) => this.#receive(e.data);
    this.#channel.postMessage({ t: "hello" } satisfies Message);
    this.#heard = performance.now();
    this.#tryLead();
    this.#check = setInterval(() => this.#beat(), FOLLOW_CHECK_MS);
  }

  /** A follower tries to lead, and polls while the leader is silent. */
  #beat(): void {
    if (this.#leader) return;
    this.#tryLead();
    if (this.#leader || performance.now() - this.#heard < SILENT_LEADER_MS) return;
    this.#setState("polling");
    void this.#sessionEnded().then((ended) => ended || this.#emit(null));
  }

  /** Takes the lead if no tab holds it. */
  #tryLead(): void {
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    if (!locks || this.#leader || this.#release) return;
    locks.request(LOCK, { ifAvailable: true }, (lock) => {
      if (!lock || !this.#running || this.#release) return;
      return new Promise<void>((release) => {
        this.#release = release;
        this.#lead();
      });
    }).catch(() => {});
  }

  #stop(): void {
    this.#running = false;
    this.#closeSource();
    this.#timers.clear();
    clearInterval(this.#check);
    if (this.#leader) this.#post({ t: "bye" });
    this.#leader = false;
    this.#role();
    this.#release?.();
    this.#release = null;
    this.#channel?.close();
    this.#channel = null;
  }

  /**
   * Whether this page's session is alive still, asked once the stream is refused and at each poll: after a sign-out
   * in another tab (or expiry) the stream and the polls are refused for good, and the page says so (`ended`) instead
   * of checking for ever. No answer (the network, the server restarting) counts as alive.
   */
  async #sessionEnded(): Promise<boolean> {
    const token = document.querySelector<HTMLInputElement>("form[action='/signout'] input[name=_csrf]")?.value;
    if (token === undefined) return false;
    const status = await fetch("/session", {
      cache: "no-store",
      headers: { "x-csrf-token": token },
      signal: AbortSignal.timeout(5_000),
    }).then((r) => r.status, () => 0);
    if (status !== 401 || !this.#running) return false;
    this.#setState("ended");
    this.#post({ t: "state", s: "ended" });
    this.#stop();
    this.#setState("ended"); // #stop leaves the state as it was: listeners keep "ended"
    return true;
  }

  #receive(message: Message): void {
    if (message.t === "state" || message.t === "delivery") this.#heard = performance.now();
    if (message.t === "hello") {
      if (this.#leader) this.#post({ t: "state", s: this.#state });
    } else if (message.t === "state") {
      if (message.s === "ended") void this.#sessionEnded(); // the same session, as a rule: confirmed, not assumed
      else if (!this.#leader) this.#setState(message.s);
    } else if (message.t === "bye") {
      this.#tryLead();
      this.#timers.later(() => this.#tryLead(), 300); // the leader's lock may be on its way out
    } else if (message.t === "delivery") this.#emit(message.d);
  }

  #lead(): void {
    this.#leader = true;
    this.#role();
    this.#timers.clear();
    this.#setState("connecting");
    this.#emit(null); // the previous leader may have gone before passing something on
    const source = new EventSource("/deliveries/events");
    this.#source = source;
    const giveUp = this.#timers.later(() => {
      if (source.readyState !== EventSource.OPEN) this.#poll();
    }, OPEN_TIMEOUT_MS);
    source.addEventListener("open", () => {
      this.#timers.cancel(giveUp);
      this.#setState("live");
    });
    // The server reads where the stream starts after it answers: a delivery stored between this tab's last look
    // and that reading is in neither. `ready` comes once it has read, so a look then leaves no gap.
    source.addEventListener("ready", () => this.#emit(null));
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return this.#setState("connecting");
      // Refused: signed out (here or elsewhere), or the server stopped.
      this.#poll();
      void this.#sessionEnded();
    });
    // The stream's sign of life, passed on as the leader's.
    source.addEventListener("ping", () => this.#post({ t: "state", s: this.#state }));
    source.addEventListener("delivery", (e) => {
      try {
        const d = JSON.parse((e as MessageEvent<string>).data) as LiveDelivery;
        this.#emit(d);
      } catch {
        this.#emit(null);
      }
    });
  }

  /** Polls, passing each tick on; a leader tries the stream again after a while. */
  #poll(): void {
    this.#closeSource();
    this.#timers.clear();
    this.#setState("polling");
    const tick = async () => {
      if (await this.#sessionEnded()) return;
      this.#emit(null);
      this.#timers.later(tick, POLL_MS);
    };
    this.#timers.later(tick, POLL_MS);
    if (this.#leader) this.#timers.later(() => this.#lead(), RETRY_STREAM_MS);
  }

  /** Whether this tab holds the stream, on the root element (`data-live-role`), for the curious and for tests. */
  #role(): void {
    document.documentElement.dataset.liveRole = this.#leader ? "leader" : this.#running ? "follower" : "off";
  }

  #closeSource(): void {
    this.#source?.close();
    this.#source = null;
  }

  #setState(state: LiveState): void {
    this.#state = state;
    if (this.#leader) this.#post({ t: "state", s: state });
    for (const listener of this.#listeners) listener.onState(state);
  }

  /** Tells this page's listeners, and the other tabs when this one leads. */
  #emit(delivery: LiveDelivery | null): void {
    if (this.#leader) this.#post({ t: "delivery", d: delivery });
    for (const listener of this.#listeners) listener.onDelivery(delivery);
  }

  #post(message: Message): void {
    this.#channel?.postMessage(message);
  }
}

let hub: LiveHub | null = null;

/**
 * Subscribes to new deliveries of every webhook, through the stream this
 * browser shares between its tabs; returns the unsubscribe function.
 */
export function subscribeLive(listener: LiveListener): () => void {
  hub ??= new LiveHub();
  return hub.add(listener);
}
