// The receiver's spans are made off the request's path: a request records
// plain data (_span_record.ts), and a worker, the span thread, makes the
// spans from it in batches, through the same exporter. Making a Deno span
// costs the thread that makes it 10-20 µs (start, attributes, context, end);
// on the span thread that work runs beside the requests, not in them.
//
// - Batches of up to BATCH records, or what came within DELAY_MS.
// - The thread is started on the first batch of THREAD_MIN records or more
//   (a few requests a second are cheaper made here than a worker is to
//   start), and stopped once it has made every batch and none came for
//   IDLE_MS (a worker keeps the process alive).
// - Exit (unload, `Deno.exit()`): the records not handed over yet are made on
//   this thread; batches handed over but not made yet are waited for (the
//   shared counter says which), up to EXIT_WAIT_MS, and then made here.
// - Where no worker can start (or it fails), every batch is made on this
//   thread, as records: still off each request's own path.

import { trace } from "@opentelemetry/api";
import { makeSpans, type SpanRecord } from "./_span_record.ts";
import { SCOPE, telemetryOff } from "./_record.ts";
import type { ToSpanThread } from "./_span_worker.ts";

const BATCH = 256;
const DELAY_MS = 100;
const THREAD_MIN = 32;
const IDLE_MS = 2000;
const EXIT_WAIT_MS = 500;

let pending: SpanRecord[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
let thread: Worker | undefined;
let broken = false;
/** Batches handed to the thread and not made yet, oldest first. */
let handed: { seq: number; records: SpanRecord[] }[] = [];
let seq = 0;
const doneBuffer = new SharedArrayBuffer(4);
const done = new Int32Array(doneBuffer);
let unloading = false;

/** Queues one request's record; its spans are made within {@linkcode DELAY_MS}. */
export function makeLater(record: SpanRecord): void {
  pending.push(record);
  if (pending.length >= BATCH) return handOver();
  if (timer === undefined) {
    const due = setTimeout(onDue, DELAY_MS);
    timer = due;
    Deno.unrefTimer(due); // a waiting record never keeps the process alive: unload makes it
  }
  if (!unloading) {
    unloading = true;
    globalThis.addEventListener("unload", makeAllNow);
  }
}

/**
 * The timer's hand-over. While telemetry is taken as off
 * (`resetTelemetry(true)`: the bench's "off" rows in the same process), the
 * records wait for the next one or exit, so that "on" pays for its own spans.
 */
function onDue(): void {
  timer = undefined;
  if (!telemetryOff()) handOver();
}

/** Hands every waiting record to the span thread (or makes them here when it cannot run). */
export function handOver(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  if (pending.length === 0) return;
  const records = pending;
  pending = [];
  forgetMade();
  const worker = thread !== undefined || records.length >= THREAD_MIN ? started() : undefined;
  if (worker === undefined) return makeHere(records);
  const batch = { seq: ++seq, records };
  handed.push(batch);
  worker.postMessage({ seq: batch.seq, records } satisfies ToSpanThread);
  scheduleIdle();
}

function started(): Worker | undefined {
  if (thread !== undefined || broken) return thread;
  try {
    thread = new Worker(new URL("./_span_worker.ts", import.meta.url), { type: "module" });
  } catch {
    broken = true;
    return undefined;
  }
  thread.onerror = (event) => {
    event.preventDefault();
    // The thread failed: what it had not made is made here, and so is all that follows.
    broken = true;
    stop();
    const left = handed.filter((batch) => batch.seq > Atomics.load(done, 0));
    handed = [];
    for (const batch of left) makeHere(batch.records);
  };
  thread.postMessage({ done: doneBuffer } satisfies ToSpanThread);
  return thread;
}

function forgetMade(): void {
  const made = Atomics.load(done, 0);
  let n = 0;
  while (n < handed.length && handed[n].seq <= made) n++;
  if (n > 0) handed = handed.slice(n);
}

function scheduleIdle(): void {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = setTimeout(onIdle, IDLE_MS);
  Deno.unrefTimer(idleTimer);
}

/** Stops the thread once it has made every batch and nothing waits; else looks again later. */
function onIdle(): void {
  idleTimer = undefined;
  forgetMade();
  if (handed.length > 0 || pending.length > 0) return scheduleIdle();
  stop();
}

function stop(): void {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  thread?.terminate();
  thread = undefined;
}

function makeHere(records: SpanRecord[]): void {
  if (records.length === 0) return;
  const tracer = trace.getTracer(SCOPE);
  for (const record of records) {
    try {
      makeSpans(tracer, record);
    } catch {
      // One bad record never stops the rest.
    }
  }
}

/**
 * At exit: waits (up to {@linkcode EXIT_WAIT_MS}) for the thread to make
 * what it was handed, makes here what it did not, and what was never handed
 * over; Deno then exports them all.
 */
export function makeAllNow(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  if (handed.length > 0 && thread !== undefined) {
    const last = handed[handed.length - 1].seq;
    const deadline = performance.now() + EXIT_WAIT_MS;
    for (let made = Atomics.load(done, 0); made < last; made = Atomics.load(done, 0)) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(done, 0, made, left);
    }
  }
  forgetMade();
  const left = [...handed.flatMap((batch) => batch.records), ...pending];
  handed = [];
  pending = [];
  stop();
  makeHere(left);
}
