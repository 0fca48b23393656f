/**
 * The pages of a hook's destinations on "Forward to": 50 to a page, in the
 * order they were added, with Older and Newer links on the hook's own path.
 * The address names the page (`?after=` a destination id; none: the first),
 * and each action's form keeps it, so that Enable, Disable, Remove and
 * Redeliver come back to the page they were clicked on.
 *
 * @module
 */

import type { VNode } from "preact";
import type { Destination } from "../../webhooks/mod.ts";

/** Destinations a page of "Forward to" shows at most. */
export const DESTINATION_PAGE = 50;

/** Which page: the one after a destination id, before one, the last (the newest, after an add), or the first. */
export type PageAt = { after?: string; before?: string } | "last";

/** One page of destinations, the page's own address (`after`), and the cursors of the pages either side. */
export interface DestinationPage {
  values: Destination[];
  /** The id the page starts after (`undefined`: the first page): what its actions keep. */
  after?: string;
  /** The link to the older ones: `before` this id. */
  older?: string;
  /** The link to the newer ones: `after` this id. */
  newer?: string;
  /** Where the page starts (from 0) and how many there are. */
  start: number;
  total: number;
}

/** The page an address names: `?after=` or `?before=` a destination id (the first page when neither). */
export function pageAt(query: (name: string) => string | undefined): PageAt {
  const after = query("after");
  if (after) return { after };
  const before = query("before");
  return before ? { before } : {};
}

/** The query that keeps the page starting after `after`, led by `lead` (`""` on the first page). */
export function keepPage(after: string | undefined, lead: "?" | "&"): string {
  return after === undefined ? "" : `${lead}after=${encodeURIComponent(after)}`;
}

/** The page `at` of `all`; one past the end (its last destinations removed) is the last page. */
export function destinationPage(all: Destination[], at: PageAt): DestinationPage {
  const sorted = all.toSorted((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0); // ULIDs: as added
  const last = Math.max(0, sorted.length - DESTINATION_PAGE);
  const first = (id: string) => {
    const i = sorted.findIndex((d) => d.id > id);
    return i < 0 ? sorted.length : i;
  };
  let start = 0;
  if (at === "last") start = last;
  else if (at.after !== undefined) start = first(at.after) < sorted.length ? first(at.after) : last;
  else if (at.before !== undefined) {
    const end = sorted.findIndex((d) => d.id >= at.before!);
    start = Math.max(0, (end < 0 ? sorted.length : end) - DESTINATION_PAGE);
  }
  const values = sorted.slice(start, start + DESTINATION_PAGE);
  return {
    values,
    after: start > 0 ? sorted[start - 1].id : undefined,
    older: start > 0 ? values[0].id : undefined,
    newer: start + DESTINATION_PAGE < sorted.length ? values.at(-1)!.id : undefined,
    start,
    total: sorted.length,
  };
}

/**
 * The count and the Older and Newer links under the destinations, when there is more than one page; each ends at the
 * table, so that a keyboard user who pages on goes on from its rows by the next Tab.
 */
export function DestinationPager({ page, path }: { page: DestinationPage; path: string }): VNode | null {
  if (page.older === undefined && page.newer === undefined) return null;
  return (
    <nav class="pager" aria-label="Pages of destinations">
      <span id="forward-count">
        {`${page.start + 1}–${page.start + page.values.length} of ${page.total} destinations`}
      </span>{" "}
      {page.older !== undefined && (
        <a id="forward-older" rel="prev" href={`${path}?before=${encodeURIComponent(page.older)}#forward-destinations`}>
          Older destinations
        </a>
      )}{" "}
      {page.newer !== undefined && (
        <a id="forward-newer" rel="next" href={`${path}?after=${encodeURIComponent(page.newer)}#forward-destinations`}>
          Newer destinations
        </a>
      )}
    </nav>
  );
}
