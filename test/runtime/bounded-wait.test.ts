import type { Logger } from "../../src/http/logger";
import { waitAtMost } from "../../src/runtime/bounded-wait";

// The runtime's stop waits for its parts at most a bound each (src/runtime/runtime.ts): a part
// stuck on a query the database never answers is logged and left behind. Fake timers: nothing
// here waits for real time.

function recordingLogger() {
  const errors: unknown[][] = [];
  const warnings: unknown[][] = [];
  const logger = {
    error: (...args: unknown[]) => errors.push(args),
    warn: (...args: unknown[]) => warnings.push(args),
  } as unknown as Logger;
  return { logger, errors, warnings };
}

describe("waitAtMost (the runtime's bounded stop)", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("returns once a part that never finishes has had its bound, and logs which part it left", async () => {
    const { logger, errors } = recordingLogger();
    let returned = false;
    const waiting = waitAtMost(new Promise<void>(() => {}), 5000, "feed sequencer", logger).then(() => {
      returned = true;
    });
    await jest.advanceTimersByTimeAsync(4999);
    expect(returned).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await waiting;
    expect(returned).toBe(true);
    expect(errors).toEqual([[{ part: "feed sequencer", waitedMs: 5000 }, expect.stringContaining("did not finish")]]);
  });

  it("returns as soon as a part finishes, logging nothing and leaving no timer behind", async () => {
    const { logger, errors } = recordingLogger();
    await waitAtMost(Promise.resolve(), 5000, "delivery worker", logger);
    expect(errors).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it("hands a failure within the bound to the caller, and logs one that comes after it", async () => {
    const { logger, warnings } = recordingLogger();
    await expect(waitAtMost(Promise.reject(new Error("pool closed")), 5000, "worker", logger)).rejects.toThrow(
      "pool closed",
    );
    let fail!: (error: Error) => void;
    const late = new Promise<void>((_resolve, reject) => (fail = reject));
    const waiting = waitAtMost(late, 100, "worker", logger);
    await jest.advanceTimersByTimeAsync(100);
    await waiting;
    fail(new Error("lost connection"));
    await jest.advanceTimersByTimeAsync(0);
    expect(warnings).toEqual([[{ part: "worker", err: new Error("lost connection") }, expect.any(String)]]);
  });
});
