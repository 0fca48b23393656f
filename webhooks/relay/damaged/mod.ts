// A destination record in the KV that is not one `add` or `update` writes: what is wrong with it, and how it is read.

export { damage, idOfKey, readable, requireWhole } from "./_damaged.ts";
