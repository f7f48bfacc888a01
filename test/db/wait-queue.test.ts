import { WaitEstimate, WaitQueue } from "../../src/db/pool-guard";

// Admission by waiting time (issue 21): which waiters the queue refuses, judged on a scripted
// clock (the sweep is called with explicit times; its interval timer is unref'd and stopped by
// emptying the queue).

const TIMEOUT = 3000;

/** An estimate that has measured a dozen holds of `holdMs`, the last released at `releasedAt`. */
function estimateWithMeanHold(poolSize: number, holdMs: number, releasedAt: number): WaitEstimate {
  const estimate = new WaitEstimate(poolSize);
  for (let i = 0; i < 12; i += 1) estimate.recordHold(holdMs, releasedAt);
  return estimate;
}

function queueOf(estimate: WaitEstimate, arrivals: number, at = 0) {
  const queue = new WaitQueue(estimate, TIMEOUT);
  const refused: number[] = [];
  const waiters = Array.from({ length: arrivals }, (_, i) => ({
    since: at,
    refuse: () => refused.push(i),
  }));
  for (const waiter of waiters) queue.add(waiter);
  const drain = () => waiters.forEach((waiter) => queue.remove(waiter));
  return { queue, refused, drain };
}

describe("the wait queue's judgement", () => {
  it("refuses nobody before a waiter has waited a quarter of the timeout, however long the queue", () => {
    const { queue, refused, drain } = queueOf(estimateWithMeanHold(10, 1000, 700), 1000);
    queue.sweep(TIMEOUT / 4 - 1);
    expect(refused).toEqual([]);
    expect(queue.refusalOnArrival(TIMEOUT / 4 - 1)).toBeNull();
    drain();
  });

  it("then refuses, oldest position first kept, exactly the waiters that cannot start within the timeout", () => {
    // Pool of 10, holds of 100 ms: at 750 ms a waiter with n ahead starts after (n/10 + 1) × 100 ms,
    // so waiters 0–219 start by 3000 ms (750 + 23 × 100 = 3050 > 3000 for position 220).
    const { queue, refused, drain } = queueOf(estimateWithMeanHold(10, 100, 700), 300);
    queue.sweep(750);
    expect(queue.size).toBe(220);
    expect(refused).toEqual(Array.from({ length: 80 }, (_, i) => 220 + i));
    drain();
  });

  it("keeps a burst that inflated holds at first once the measured holds come back down", () => {
    // During the intake the event loop is late to every callback: holds of 40 ms are measured.
    const estimate = estimateWithMeanHold(10, 40, 100);
    const { queue, refused, drain } = queueOf(estimate, 900);
    // On arrival, 900 waiters × 40 ms / 10 = 3.6 s would have refused the last 150. Judged later,
    // on holds measured after the intake (8 ms), all 900 start well within the timeout.
    for (let i = 0; i < 12; i += 1) estimate.recordHold(8, 795);
    queue.sweep(800);
    expect(refused).toEqual([]);
    expect(queue.size).toBe(900);
    drain();
  });

  it("refuses arrivals at once for one timeout after it has shed, when the waiters ahead could not all start in time", () => {
    const { queue, refused, drain } = queueOf(estimateWithMeanHold(2, 250, 700), 20);
    expect(queue.refusalOnArrival(0)).toBeNull();
    // At 800 ms a waiter with n ahead starts after (n/2 + 1) × 250 ms: 16 can start by 3000 ms.
    queue.sweep(800);
    expect(refused).toEqual([16, 17, 18, 19]);
    // Behind those 16, an arrival would still start in time (2250 ms): it waits.
    expect(queue.refusalOnArrival(800)).toBeNull();
    // Twenty more arrive and wait unjudged; the next would start after 19 rounds of 250 ms.
    const later = Array.from({ length: 20 }, () => ({ since: 800, refuse: () => undefined }));
    later.forEach((waiter) => queue.add(waiter));
    expect(queue.refusalOnArrival(900)).toBe(19 * 250);
    // Once no connection has come back for twice the mean hold, nobody is judged on the mean.
    expect(queue.refusalOnArrival(1201)).toBeNull();
    // One timeout after the last refusal, arrivals wait their turn again.
    expect(queue.refusalOnArrival(800 + TIMEOUT)).toBeNull();
    later.forEach((waiter) => queue.remove(waiter));
    drain();
  });

  it("judges nobody while no connection has come back for twice the mean hold (a frozen server, held connections)", () => {
    // Holds of 50 ms, the last released at 0. On that mean, at 750 ms the waiters with 440 or
    // more ahead could not start in time; but the pool has stopped returning connections, so the
    // acquire timeout decides (503 "unavailable", not "overloaded").
    const { queue, refused, drain } = queueOf(estimateWithMeanHold(10, 50, 0), 1000);
    queue.sweep(750);
    queue.sweep(2900);
    expect(refused).toEqual([]);
    expect(queue.size).toBe(1000);
    drain();
  });

  it("after a stall (a Galera node evicted), judges the backlog on what holds cost, not on the stall", () => {
    // Holds of 10 ms, the last released at 1000. Then nothing comes back for 2.5 s while requests
    // wait (the cluster holds every commit until the lost node is evicted); the ten holds under
    // way end at 3500 and after, each 2.51 s long, of which 10 ms is the work.
    const estimate = estimateWithMeanHold(10, 10, 1000);
    const { queue, refused, drain } = queueOf(estimate, 200, 1100);
    queue.sweep(1500);
    queue.sweep(3400);
    expect(refused).toEqual([]);
    for (let i = 0; i < 10; i += 1) estimate.recordHold(2510, 3500 + i);
    // The 200 waiters start within (200/10 + 1) × 10 ms: none is refused, whatever its age.
    queue.sweep(3520);
    expect(refused).toEqual([]);
    expect(estimate.expectedWaitMs(199, 3520)).toBeLessThan(300);
    drain();

    // Without the stall left out, the same holds would have refused the whole backlog as hopeless.
    const naive = estimateWithMeanHold(10, 10, 1000);
    for (let i = 0; i < 10; i += 1) naive.recordHold(2510, 3500 + i);
    expect(naive.expectedWaitMs(199, 3520)).toBeGreaterThan(TIMEOUT);
  });

  it("after a stall, a pause among the holds coming back does not make the stall count again", () => {
    // Holds of 10 ms, the last released at 1000; nothing comes back until 3500. The holds under
    // way through the stall come back one after another (they queue on one row lock), and
    // between two of them nothing is released for longer than twice the mean hold: the sweep
    // notes a short stall of its own. The hold that ends it came through both.
    const estimate = estimateWithMeanHold(10, 10, 1000);
    const { queue, refused, drain } = queueOf(estimate, 100, 1100);
    queue.sweep(1500);
    for (let i = 0; i < 6; i += 1) estimate.recordHold(2510 + i * 10, 3510 + i * 10);
    queue.sweep(3620);
    estimate.recordHold(2640, 3640);
    // 2.5 s of it fell in the long stall and 80 ms in the short one: 60 ms is the work.
    expect(estimate.expectedWaitMs(0, 3641)).toBeLessThan(60);
    queue.sweep(3650);
    expect(refused).toEqual([]);
    drain();
  });

  it("a hold that is slow while others come back is its cost: no stall is assumed", () => {
    const estimate = estimateWithMeanHold(2, 250, 700);
    const { queue, drain } = queueOf(estimate, 20, 700);
    // Connections keep coming back every 250 ms: the pool flows, each hold counts whole.
    for (let at = 950; at <= 1700; at += 250) {
      queue.sweep(at - 1);
      estimate.recordHold(250, at);
    }
    expect(estimate.expectedWaitMs(0, 1700)).toBe(250);
    drain();
  });

  it("judges nobody while fewer than five holds have been measured (a cold pool)", () => {
    const { queue, refused, drain } = queueOf(new WaitEstimate(1), 100);
    queue.sweep(TIMEOUT * 2);
    expect(refused).toEqual([]);
    drain();
  });
});
