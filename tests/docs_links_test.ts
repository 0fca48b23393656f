// Every link to a docs page lands on a page and a heading that exist, and every
// docs page keeps to one concern of at most 300 lines. Links are the relative
// Markdown links of README.md and docs/*.md (`[x](cli.md#commands)`,
// `[x](#consistency)`), and anywhere in the repository's sources and docs,
// `docs/PAGE.md#anchor` and a section named in prose as
// `docs/PAGE.md, "Heading"` (or the words a list item of it starts with). Anchors follow GitHub's slugs: lowercase, spaces
// to '-', punctuation other than '-' and '_' dropped, a repeat given `-1`.

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MAX_LINES = 300;
/** This file, whose examples name pages that do not exist. */
const SELF = "tests/docs_links_test.ts";
/** Where sources and docs name docs pages: folders walked for `.ts` and `.md` files, and top-level files. */
const SOURCES = ["webhooks", "console", "sandbox", "scripts", "tests", "browser", "kvconnect", "docs"];
const TOP_FILES = ["README.md", "BENCHMARKS.md", "mod.ts"];

/** GitHub's anchor for a heading's text. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of a Markdown page's headings (outside code fences), repeats numbered as GitHub does. */
export function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** The relative Markdown links of a page that point to a Markdown page or an anchor, outside code fences. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  let fenced = false;
  text.split("\n").forEach((line, index) => {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced) return;
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      if (target.startsWith("#") || /\.md(#|$)/.test(target)) out.push({ target, line: index + 1 });
    }
  });
  return out;
}

/** The docs sections a text names: `docs/PAGE.md#anchor`, and `docs/PAGE.md, "Heading"` across comment lines. */
export function namedSections(text: string): { page: string; anchor?: string; heading?: string }[] {
  const flat = text.replace(/\n\s*(\/\/+|\*|#)?\s*/g, " ");
  const out: { page: string; anchor?: string; heading?: string }[] = [];
  for (const [, page, anchor] of flat.matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)) out.push({ page, anchor });
  for (const [, page, heading] of flat.matchAll(/\bdocs\/([\w-]+\.md)`?,\s*"([^"]+)"/g)) out.push({ page, heading });
  return out;
}

function docsPages(): string[] {
  return [...Deno.readDirSync(join(ROOT, "docs"))].filter((e) => e.name.endsWith(".md")).map((e) => `docs/${e.name}`)
    .sort();
}

function sourceFiles(): string[] {
  const out = TOP_FILES.filter((f) => existsSync(join(ROOT, f)));
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        if (!["node_modules", ".git", ".data", "_build"].includes(entry.name)) walk(path);
      } else if (/\.(ts|tsx|md)$/.test(entry.name) && path !== SELF) out.push(path);
    }
  };
  for (const dir of SOURCES) if (existsSync(join(ROOT, dir))) walk(dir);
  return out.sort();
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(path: string): Set<string> {
  if (!anchorCache.has(path)) anchorCache.set(path, anchors(Deno.readTextFileSync(path)));
  return anchorCache.get(path)!;
}

/** Whether a page has a list item that starts with the words a text names as its section. */
function listItem(path: string, words: string | undefined): boolean {
  return words !== undefined && Deno.readTextFileSync(path).split("\n").some((line) => line.startsWith(`- ${words} `));
}

Deno.test("slug() and anchors() follow GitHub: lowercase, spaces to '-', punctuation dropped, repeats numbered", () => {
  assert.equal(slug("Dead letters after an outage: `relay`"), "dead-letters-after-an-outage-relay");
  assert.equal(
    slug("Objects, arrays, functions, strings, query strings"),
    "objects-arrays-functions-strings-query-strings",
  );
  assert.equal(slug("Prometheus: the console's `/metrics`"), "prometheus-the-consoles-metrics");
  assert.equal(slug("How it is built, and why"), "how-it-is-built-and-why");
  assert.deepEqual([...anchors("# A\n## B c\n```sh\n# not\n```\n## B c\n")], ["a", "b-c", "b-c-1"]);
});

Deno.test("namedSections() finds anchors and quoted headings, across comment lines", () => {
  assert.deepEqual(
    namedSections('// see (docs/cli.md, "Output, exit status")\n// and docs/webhooks.md,\n// "Consistency".'),
    [{ page: "cli.md", heading: "Output, exit status" }, { page: "webhooks.md", heading: "Consistency" }],
  );
  assert.deepEqual(namedSections("a KV Connect URL: docs/architecture.md#past-one-machine"), [
    { page: "architecture.md", anchor: "past-one-machine" },
  ]);
});

Deno.test("every relative link in README.md and docs/ lands on a page and a heading that exist", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const doc of ["README.md", ...docsPages()]) {
    for (const { target, line } of markdownLinks(Deno.readTextFileSync(join(ROOT, doc)))) {
      checked++;
      const [file, anchor] = target.split("#");
      const page = file === "" ? join(ROOT, doc) : resolve(ROOT, dirname(doc), file);
      if (!existsSync(page)) broken.push(`${doc}:${line}: ${target} (no such page)`);
      else if (anchor !== undefined && !anchorsOf(page).has(anchor)) {
        broken.push(`${doc}:${line}: ${target} (no such heading in ${relative(ROOT, page)})`);
      }
    }
  }
  assert.ok(checked > 20, `only ${checked} links found: the scan is broken`);
  assert.deepEqual(broken, []);
});

Deno.test('every docs section the sources and docs name (docs/PAGE.md#anchor, docs/PAGE.md, "Heading") exists', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of sourceFiles()) {
    for (const { page, anchor, heading } of namedSections(Deno.readTextFileSync(join(ROOT, file)))) {
      checked++;
      const path = join(ROOT, "docs", page);
      const want = anchor ?? slug(heading!);
      if (!existsSync(path)) broken.push(`${file}: docs/${page} (no such page)`);
      else if (!anchorsOf(path).has(want) && !listItem(path, heading)) {
        broken.push(`${file}: docs/${page} has no heading ${anchor ?? `"${heading}"`}`);
      }
    }
  }
  assert.ok(checked > 5, `only ${checked} sections found: the scan is broken`);
  assert.deepEqual(broken, []);
});

Deno.test(`every docs page is at most ${MAX_LINES} lines: one concern a page`, () => {
  const long = docsPages().map((doc) => ({ doc, lines: Deno.readTextFileSync(join(ROOT, doc)).split("\n").length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES).map(({ doc, lines }) => `${doc}: ${lines} lines`);
  assert.deepEqual(long, []);
});
