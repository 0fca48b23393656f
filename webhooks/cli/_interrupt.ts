// Ctrl-C (SIGINT) of the command line's own process, and for `receive` and
// `listen` also SIGTERM (a process manager's or docker's stop), which counts
// as Ctrl-C; SIGHUP is left alone, so that `nohup` keeps a `receive` running.
// `receive` and `listen` end on their own at the first (their signal aborts;
// `listen` removes its destination once its worker has given back what it
// had in flight). A second ends any command here, with status 130 (SIGINT's
// own): `listen` first runs its last task, the removal of its destination
// without waiting for the worker, for at most LAST_TASK_MS; a third ends it
// at once. Any other command ends at the first. A SIGINT within SAME_PRESS_MS
// of the one before is that same Ctrl-C delivered twice (by deno task).

/** What a second Ctrl-C still does before the process ends: `listen`'s removal of its destination. */
export type LastTask =
  & {
    /** What is left when the process ends without it done: `the destination is left for ...`. */
    left: string;
  }
  & ({
    /** What it does, as stderr says it: `removing destination 01J...`. */
    doing: string;
    /** Does it; stderr says what came of it. */
    run(): Promise<void>;
  } | {
    /** Nothing to do (yet): a second Ctrl-C ends the process at once, saying what is left. */
    doing?: undefined;
  });

/** How long a second Ctrl-C waits for the last task before the process ends anyway. */
export const LAST_TASK_MS = 5_000;

/**
 * A SIGINT this soon after the one before is the same Ctrl-C: a terminal signals its whole foreground process group,
 * and `deno task` forwards the SIGINT it got to its child, so `deno task cli receive` gets one key press twice.
 */
export const SAME_PRESS_MS = 200;

/** What the handler needs of the command line. */
export interface InterruptOptions {
  /** Whether the command ends on its own at the first Ctrl-C (`receive`, `listen`). */
  ownEnd: boolean;
  /** Aborted at the first Ctrl-C of a command that ends on its own. */
  interrupt: AbortController;
  /** Closes the KV: whatever was running stops there (each write is atomic: nothing is left half-written). */
  close(): void;
  err(text: string): void;
  /** The message of an error, secrets blotted out. */
  messageOf(error: unknown): string;
}

/** The process's Ctrl-C handling while a command runs: `lastly` sets (or clears) the last task; `dispose` ends it. */
export interface Interrupts {
  lastly(task: LastTask | null): void;
  dispose(): void;
}

/** The signals that end `receive` and `listen` as Ctrl-C does (Windows has none of them). */
const ENDING: Deno.Signal[] = Deno.build.os === "windows" ? [] : ["SIGTERM"];

/** Listens to SIGINT (and, for `receive` and `listen`, SIGTERM) for the process until `dispose()`. */
export function handleInterrupts(options: InterruptOptions): Interrupts {
  let task: LastTask | null = null;
  let count = 0;
  let lastSignal = -Infinity;
  let disposed = false;
  let ended = false;
  const end = (message: string) => {
    if (ended) return;
    ended = true;
    try {
      options.close();
    } catch {
      // already closed
    }
    options.err(message);
    // Ended by the signal itself, as a program without a handler is (status 130), not through Deno.exit, which with
    // OTEL_DENO=true can hang for good (docs/observability.md, "Ending the process"). With no listener left, Deno
    // takes SIGINT's default action; should another listener keep it, Deno.exit ends the process after all.
    remove();
    Deno.kill(Deno.pid, "SIGINT");
    setTimeout(() => Deno.exit(130), 1_000);
  };
  const onSignal = () => {
    // Measured from the last SIGINT counted, so that Ctrl-C pressed again and again still counts.
    const now = performance.now();
    if (disposed || (options.ownEnd && now - lastSignal < SAME_PRESS_MS)) return;
    lastSignal = now;
    count++;
    if (!options.ownEnd) return end("Interrupted");
    if (count === 1) return options.interrupt.abort();
    // With the KV out of reach (KV Connect retries for good) the task never returns: a third Ctrl-C, or the time
    // allowed, ends the process anyway, rather than leave only `kill -9`.
    if (task === null) return end("Interrupted");
    const last = task;
    if (count > 2 || last.doing === undefined) return end(`Interrupted again: ${last.left}`);
    options.err(`Interrupted again: not waiting for the deliveries in flight; ${last.doing} (Ctrl-C again to skip it)`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`Interrupted: ${last.doing} took over ${LAST_TASK_MS / 1000} s; ${last.left}`),
        LAST_TASK_MS,
      );
    });
    const done = last.run().then(() => "Interrupted", (error) => `Error: ${options.messageOf(error)}; ${last.left}`);
    Promise.race([done, late]).then((message) => {
      clearTimeout(timer);
      end(message);
    });
  };
  const signals: Deno.Signal[] = ["SIGINT", ...(options.ownEnd ? ENDING : [])];
  const remove = () => signals.forEach((signal) => Deno.removeSignalListener(signal, onSignal));
  signals.forEach((signal) => Deno.addSignalListener(signal, onSignal));
  return {
    lastly: (next) => void (task = next),
    dispose: () => {
      if (ended || disposed) return;
      disposed = true;
      // The same Ctrl-C's second SIGINT may still be on its way: taken now by no listener, it would end the process
      // with 130 after a clean stop. It is swallowed for the rest of the window.
      const left = SAME_PRESS_MS - (performance.now() - lastSignal);
      if (left > 0) setTimeout(remove, left);
      else remove();
    },
  };
}
