// The observers of observeMetrics, read by every measurement.

import type { MetricsObserver } from "./types.ts";

/** The observers; the list is replaced, never changed in place, so a measurement keeps the list it started with. */
export const observers: { list: readonly MetricsObserver[] } = { list: [] };
