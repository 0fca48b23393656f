// A list of the store printed page by page as the pages come, so that a
// list of any length takes the memory of one page (10,000 hooks gathered
// first took 116 MB). The bytes are those of the list gathered first: with
// --json one array, `[`, the items, `]`; a table's columns as wide as the
// widest cell of the first page with a row, a longer cell of a later page
// not cut (its row then stands out of line). A page that fails after some
// are printed leaves the array without its `]` and the last item printed
// with its `,` after it: it cannot parse as a shorter, complete list.

import { jsonText, tableCells, tableHead, tableLine, tableWidths } from "./_format.ts";

/** What a paged list prints, and where it reads its pages. */
export interface PagedList<T> {
  /** Its items in the progress line: `webhooks`. */
  what: string;
  /** Reads the page at `cursor` (the first when undefined). */
  page(cursor: string | undefined): Promise<{ values: T[]; cursor: string }>;
  /** An item as --json shows it. */
  shown(item: T): unknown;
  /** The table's head, an item's row, and what the table says when there is no item. */
  head: string[];
  row(item: T): unknown[];
  none: string;
}

/** Where a paged list prints, and what stops it. */
export interface PagedOutput {
  json: boolean;
  out(text: string): void;
  progress(text: string): void;
  signal: AbortSignal;
}

/** Prints every item of `list`, a page at a time; throws when a page fails or `signal` aborts before the end. */
export async function printPages<T>(ctx: PagedOutput, list: PagedList<T>): Promise<void> {
  const print = ctx.json ? jsonPrinter() : tablePrinter(list.head);
  let count = 0;
  let cursor: string | undefined;
  do {
    if (ctx.signal.aborted) throw new Error(`Interrupted after ${count} ${list.what}: the list printed is not whole`);
    const next = await list.page(cursor);
    count += next.values.length;
    print.page(ctx, next.values.map((item) => ctx.json ? list.shown(item) : list.row(item)));
    cursor = next.cursor || undefined;
    if (cursor) ctx.progress(`${count.toLocaleString("en-US")} ${list.what} so far`);
  } while (cursor);
  print.end(ctx, list.none);
}

interface Printer {
  page(ctx: PagedOutput, items: unknown[]): void;
  end(ctx: PagedOutput, none: string): void;
}

/** `JSON.stringify(all, null, 2)` a page at a time: the last item so far is held back until its `,` is known. */
function jsonPrinter(): Printer {
  let held: string | null = null;
  return {
    page(ctx, items) {
      const lines: string[] = held === null && items.length > 0 ? ["["] : [];
      for (const item of items) {
        if (held !== null) lines.push(`${held},`);
        held = jsonText(item, 2).replace(/^/gm, "  ");
      }
      if (lines.length > 0) ctx.out(lines.join("\n"));
    },
    end(ctx) {
      ctx.out(held === null ? "[]" : `${held}\n]`);
    },
  };
}

/** The table a page at a time, its widths from the first page with a row. */
function tablePrinter(head: string[]): Printer {
  let widths: number[] | null = null;
  return {
    page(ctx, rows) {
      if (rows.length === 0) return;
      const cells = tableCells(rows as unknown[][]);
      const lines = widths === null ? [tableHead(head, widths = tableWidths(head, cells))] : [];
      ctx.out([...lines, ...cells.map((row) => tableLine(row, widths!))].join("\n"));
    },
    end(ctx, none) {
      if (widths === null) ctx.out(none);
    },
  };
}
