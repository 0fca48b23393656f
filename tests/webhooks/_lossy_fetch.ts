// A fetch that loses the answers of PUTs while told to: the platform took
// the request and changed the hook, the caller gets a connection reset (a
// PlatformError with `uncertain: true`), as when the network fails on the
// way back.

/** The fetch, and the switch that makes it lose the answers of PUTs. */
export interface LossyFetch {
  fetch: typeof fetch;
  lose: boolean;
}

/** A fetch that passes requests on, losing each PUT's answer while `lose` is set. */
export function lossyFetch(): LossyFetch {
  const lossy: LossyFetch = {
    lose: false,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (lossy.lose && init?.method === "PUT") {
        await response.body?.cancel();
        throw new TypeError("connection reset");
      }
      return response;
    },
  };
  return lossy;
}
