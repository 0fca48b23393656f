// Run by preload_test.ts with `--preload kvconnect/preload.ts` and KV_CONNECT=1:
// prints what the replaced Deno.openKv did, as one JSON line.
const [path] = Deno.args;
const memoryA = await Deno.openKv(":memory:");
const memoryB = await Deno.openKv(":memory:");
const fileA = await Deno.openKv(path);
const fileB = await Deno.openKv(path);
await memoryA.set(["m"], "a");
await fileA.set(["f"], "shared");
const eleven = memoryA.atomic();
for (let i = 0; i < 11; i++) eleven.check({ key: ["c", i], versionstamp: null });
const refused = await eleven.commit().then(() => "", (error: Error) => error.message);
console.log(JSON.stringify({
  memoryIsolated: (await memoryB.get(["m"])).value === null,
  fileShared: (await fileB.get(["f"])).value,
  refused,
}));
for (const kv of [memoryA, memoryB, fileA, fileB]) kv.close();
