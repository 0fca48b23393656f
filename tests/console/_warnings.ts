// What the console writes through console.warn (its log of refused sign-ins and the like) while a test runs.

/** Runs `fn` and resolves with what it wrote through console.warn, one string a call. */
export async function warningsOf(fn: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(" "));
  try {
    await fn();
  } finally {
    console.warn = warn;
  }
  return warnings;
}
