import { LiveEventHub } from "../../src/runtime/live-events-hub";
import { MAPLE } from "../fixtures/test-fixture";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";

// What live updates cost the database (docs/graphql-clients.md#live-updates): nothing while an
// instance has no subscriber, and one statement per poll interval however many it has. Upper
// bounds over a fixed time, so a slow machine cannot make them fail; a poll per subscriber
// would exceed them tenfold.

const POLL_MS = 100;
const WINDOW_MS = 1000;
const POLLS_AT_MOST = WINDOW_MS / POLL_MS + 2;

let db: DomainDatabase;
let hub: LiveEventHub;
beforeAll(async () => {
  db = await openDomainDatabase();
  hub = new LiveEventHub(db.dataSource, {
    pollIntervalMs: POLL_MS,
    pollIdleMs: POLL_MS,
    queueMaxEvents: 10,
    onPollError: () => undefined,
  });
});
afterAll(async () => {
  hub.close();
  await db.dispose();
});

const idle = () => new Promise((resolve) => setTimeout(resolve, WINDOW_MS));

it("no subscriber: no statement", async () => {
  expect((await db.countAllStatements(idle)).statements).toBe(0);
});

it("one subscriber or twenty: at most one statement per poll interval; none once they have all left", async () => {
  const one = await hub.open({ groupId: MAPLE.groupId, cloginId: null, registrantView: false }, () => undefined);
  const alone = await db.countAllStatements(idle);
  expect(alone.statements).toBeGreaterThan(0);
  expect(alone.statements).toBeLessThanOrEqual(POLLS_AT_MOST);

  const more = await Promise.all(
    Array.from({ length: 19 }, (_, i) =>
      hub.open(
        {
          groupId: i % 2 ? MAPLE.groupId : MAPLE.jazzGroupId,
          cloginId: i % 3 ? MAPLE.miles : null,
          registrantView: false,
        },
        () => undefined,
      ),
    ),
  );
  expect(hub.subscriberCount).toBe(20);
  const many = await db.countAllStatements(idle);
  expect(many.statements).toBeLessThanOrEqual(POLLS_AT_MOST);

  for (const subscription of [one, ...more]) await subscription.return!();
  expect(hub.subscriberCount).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 2 * POLL_MS)); // a poll in flight ends
  expect((await db.countAllStatements(idle)).statements).toBe(0);
});

it("with subscribers and no writes the fallback read backs off to one per pollIdleMs; a wake reads at once", async () => {
  const backingOff = new LiveEventHub(db.dataSource, {
    pollIntervalMs: 20,
    pollIdleMs: 200,
    queueMaxEvents: 10,
    onPollError: () => undefined,
  });
  try {
    const subscription = await backingOff.open(
      { groupId: MAPLE.groupId, cloginId: null, registrantView: false },
      () => undefined,
    );
    // 20, 40, 80, 160, then every 200 ms.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const quiet = await db.countAllStatements(idle);
    expect(quiet.statements).toBeGreaterThan(0);
    // Without the back-off: 50.
    expect(quiet.statements).toBeLessThanOrEqual(WINDOW_MS / 200 + 1);
    // A wake (a sequencer placed events) reads now, not at the next fallback read.
    const woken = await db.countAllStatements(async () => {
      backingOff.wake();
      await new Promise((resolve) => setTimeout(resolve, 30));
    });
    expect(woken.statements).toBeGreaterThanOrEqual(1);
    await subscription.return!();
  } finally {
    backingOff.close();
  }
});
