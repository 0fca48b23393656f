// The walls between the project's parts (issue 14): a part is used by
// another only through its mod.ts; a file named _x.ts is private to its
// folder; no part imports scripts/, tests/ or bench/; and no import circle.
// Read from the source itself, so the walls stay up as the code changes.

import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The parts, by folder; each is entered through its mod.ts. */
const PARTS = ["webhooks", "browser", "console", "sandbox", "build"];
const TOOLING = ["scripts", "tests", "bench"];

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, dir))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (!["node_modules", "_build", ".data", ".git"].includes(entry.name)) out.push(...await sourceFiles(path));
    } else if (/\.(ts|tsx)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The repository files a file imports (relative specifiers only; packages are not walls). */
async function importsOf(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(ROOT, file));
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gms),
    ...text.matchAll(/^\s*import\s+["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith(".")).map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)));
}

function partOf(file: string): string | null {
  const top = file.split("/")[0];
  return PARTS.includes(top) ? top : null;
}

const files = [
  "mod.ts",
  ...(await Promise.all([...PARTS, ...TOOLING].map((d) => sourceFiles(d).catch(() => [])))).flat(),
];
const graph = new Map<string, string[]>();
for (const file of files) graph.set(file, await importsOf(file));

Deno.test("a part imports another part only through its mod.ts", () => {
  const breaches: string[] = [];
  for (const [file, targets] of graph) {
    const from = partOf(file);
    if (from === null) continue;
    for (const target of targets) {
      const to = partOf(target);
      if (to !== null && to !== from && target !== `${to}/mod.ts`) breaches.push(`${file} -> ${target}`);
      if (TOOLING.includes(target.split("/")[0])) breaches.push(`${file} -> ${target} (tooling)`);
    }
  }
  assert.deepEqual(breaches, []);
});

Deno.test("a file named _x.ts is imported only from its own folder (or a folder inside it)", () => {
  const breaches: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const name = target.split("/").pop()!;
      if (!name.startsWith("_")) continue;
      const folder = dirname(target);
      if (!(dirname(file) === folder || dirname(file).startsWith(folder + "/"))) breaches.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(breaches, []);
});

Deno.test("no import circle among the project's modules", () => {
  const state = new Map<string, "open" | "done">();
  const circles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      circles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(circles, []);
});

/** The folders inside a part that have a face (a mod.ts), such as webhooks/receiver. */
const FACED = [...new Set(files.filter((f) => f.split("/").length > 2 && f.endsWith("/mod.ts")).map(dirname))]
  .filter((dir) => PARTS.includes(dir.split("/")[0]));

Deno.test("a folder inside a part is used from outside only through its mod.ts", () => {
  assert.ok(FACED.includes("webhooks/receiver"), `faced folders: ${FACED.join(", ")}`);
  const breaches: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      for (const dir of FACED) {
        if (target.startsWith(dir + "/") && !file.startsWith(dir + "/") && target !== `${dir}/mod.ts`) {
          breaches.push(`${file} -> ${target}`);
        }
      }
    }
  }
  assert.deepEqual(breaches, []);
});

/** Every repository file that `file` reaches through its imports, itself excluded. */
function reachable(file: string): Set<string> {
  const seen = new Set<string>();
  const walk = (from: string) => {
    for (const target of graph.get(from) ?? []) {
      if (!seen.has(target)) {
        seen.add(target);
        walk(target);
      }
    }
  };
  walk(file);
  return seen;
}

/** Which of Module A's concerns may not reach which, directly or through other files. */
const ABOVE_ALL = ["webhooks/cli", "webhooks/relay"];
const MODULE_A_WALLS: [from: string, mayNotReach: string[]][] = [
  ["webhooks/store", ["webhooks/receiver", "webhooks/platform", ...ABOVE_ALL]],
  ["webhooks/kv", ["webhooks/store", "webhooks/platform", "webhooks/receiver", "webhooks/telemetry", ...ABOVE_ALL]],
  ["webhooks/signature", ["webhooks/store", "webhooks/platform", "webhooks/receiver", ...ABOVE_ALL]],
  ["webhooks/group_commit", ["webhooks/store", "webhooks/platform", "webhooks/receiver", ...ABOVE_ALL]],
  ["webhooks/telemetry", [
    "webhooks/store",
    "webhooks/platform",
    "webhooks/receiver",
    "webhooks/group_commit",
    ...ABOVE_ALL,
  ]],
  ["webhooks/platform", ["webhooks/receiver", ...ABOVE_ALL]],
  ["webhooks/receiver", ABOVE_ALL],
  ["webhooks/relay", ["webhooks/cli"]],
  ["webhooks/cursor", [
    "webhooks/kv",
    "webhooks/store",
    "webhooks/platform",
    "webhooks/receiver",
    "webhooks/telemetry",
    "webhooks/group_commit",
    ...ABOVE_ALL,
  ]],
  ["webhooks/net", ["webhooks/kv", "webhooks/store", "webhooks/platform", "webhooks/receiver", ...ABOVE_ALL]],
];

Deno.test("Module A's concerns stand on each other in one direction: the store reaches neither the receiver nor the CLI", () => {
  const breaches: string[] = [];
  for (const [from, walls] of MODULE_A_WALLS) {
    const sources = [...graph.keys()].filter((f) => f.startsWith(from + "/"));
    assert.ok(sources.length > 0, `${from} has no source files`);
    for (const file of sources) {
      for (const target of reachable(file)) {
        const wall = walls.find((w) => target.startsWith(w + "/"));
        if (wall) breaches.push(`${file} reaches ${target}`);
      }
    }
  }
  assert.deepEqual(breaches, []);
});

Deno.test("each folder of webhooks/ holds one concern of at most 15 files, with a mod.ts face", async () => {
  const crowded: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, "webhooks"))) {
    if (!entry.isDirectory) continue;
    const names: string[] = [];
    for await (const file of Deno.readDir(join(ROOT, "webhooks", entry.name))) if (file.isFile) names.push(file.name);
    if (!names.includes("mod.ts")) crowded.push(`webhooks/${entry.name} has no mod.ts`);
    if (names.length > 15) crowded.push(`webhooks/${entry.name} holds ${names.length} files`);
  }
  assert.deepEqual(crowded, []);
});

Deno.test("every source file is at most 300 lines", async () => {
  const long: string[] = [];
  for (const file of [...files, ...await sourceFiles("kvconnect")]) {
    const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n").length - 1;
    if (lines > 300) long.push(`${file} has ${lines} lines`);
  }
  assert.deepEqual(long, []);
});
