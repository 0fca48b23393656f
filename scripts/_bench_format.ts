// How scripts/bench.ts writes figures: times, ratios, byte counts, verdicts
// and Markdown tables. Private to scripts/.

export function fmtTime(ns: number | undefined): string {
  if (ns === undefined || !Number.isFinite(ns)) return "n/a";
  if (ns < 0) return `−${fmtTime(-ns)}`;
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(ns < 10_000 ? 2 : 1)} µs`;
  if (ns < 1_000_000_000) return `${(ns / 1_000_000).toFixed(ns < 10_000_000 ? 2 : 1)} ms`;
  return `${(ns / 1_000_000_000).toFixed(2)} s`;
}

export function fmtRatio(r: number | undefined, digits = 2): string {
  if (r === undefined || !Number.isFinite(r)) return "n/a";
  return r >= 100 ? `${r.toFixed(0)}x` : `${r.toFixed(digits)}x`;
}

export function exactBytes(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} B`;
}

export function fmtBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Whether a ratio meets a target, at the two decimals shown. */
export function within(r: number, target: number): boolean {
  return Math.round(r * 100) <= Math.round(target * 100);
}

export function mark(ok: boolean | undefined): string {
  return ok === undefined ? "n/a" : ok ? "met" : "**missed**";
}

export function table(head: string[], rows: string[][]): string {
  const lines = [`| ${head.join(" | ")} |`, `|${head.map((_, i) => i === 0 ? "---" : "---:").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

export function sizeLabel(n: number): string {
  return n % 1000 === 0 ? `${n / 1000}k` : String(n);
}
