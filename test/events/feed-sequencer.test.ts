import type { EntityManager } from "typeorm";
import { claimUnplacedEvents, placeEventsInFeed, takeFeedPositions } from "../../src/data/event-feed.data";
import { placeCommittedEvents } from "../../src/domain/events/event-feed";
import { inTransaction } from "../../src/domain/transaction";
import { startFeedSequencer } from "../../src/runtime/feed-sequencer";
import { MAPLE } from "../fixtures/test-fixture";
import { itOnMysqlFamily, onMysqlFamily } from "../support/database";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { recordTestEvents, silentLogger, until } from "./support/worker-setup";

// The feed sequencer (src/runtime/feed-sequencer.ts, docs/event-feed.md): events join the pull
// feed and reach live subscribers without the delivery worker; a commit wakes it, and events no
// commit of this process announced are found by its look; positions become visible in increasing
// order, so a reader paging along the feed while writes commit skips nothing.

let t: TestApp;
beforeEach(async () => {
  // The app's runtime, as main starts it, without the delivery worker.
  t = await startTestApp();
});
afterEach(() => t.close());

const unplacedCount = async () =>
  Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM event WHERE feed_position IS NULL`))[0].n);
const listRest = (after?: string) => postRest(t.app, "events", { action: "list", doc: { limit: 500, after } });

const rename = (cloginId: number, name: string) =>
  postRest(t.app, "users", {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: { first_name: name },
  }).expect(200);

it("without the delivery worker, a write's event joins the feed and reaches a live subscriber", async () => {
  expect(t.runtime.worker).toBeNull();
  const subscription = await t.runtime.liveEvents.open(
    { groupId: MAPLE.groupId, cloginId: MAPLE.miles, registrantView: false },
    () => undefined,
  );
  try {
    const next = subscription.next();
    await rename(MAPLE.miles, "Sequenced");
    const { value } = await next;
    expect(value).toMatchObject({ type: "user.updated", groupId: MAPLE.groupId, cloginId: MAPLE.miles });
    const page = await listRest();
    expect(page.status).toBe(200);
    const events = page.body.events as { id: string; type: string }[];
    expect(events.find((event) => event.id === value.eventId)).toMatchObject({ type: "user.updated" });
    // The subscriber's cursor continues the feed right after the event.
    const after = await listRest(value.cursor);
    expect(after.body.events.map((event: { id: string }) => event.id)).toEqual(
      events.slice(events.findIndex((event) => event.id === value.eventId) + 1).map((event) => event.id),
    );
    // Not fanned out to webhooks: that is the worker's, and it does not run.
    const [row] = await t.dataSource.query(`SELECT dispatched_at FROM event WHERE public_id = ?`, [value.eventId]);
    expect(row.dispatched_at).toBeNull();
  } finally {
    await subscription.return!();
  }
});

/** Inserts one user.updated event of Maple's on `em` (a transaction of the test's). */
const insertEvent = (em: EntityManager, n: number) =>
  em.query(
    `INSERT INTO event (public_id, organization_id, group_id, type, data, actor, created_at)
     VALUES (?, 1, ?, 'user.updated', ?, '{"type":"system"}', ?)`,
    [
      `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
      MAPLE.groupId,
      JSON.stringify({ clogin_id: MAPLE.miles }),
      onMysqlFamily ? new Date() : "2026-11-28 00:00:00",
    ],
  );

itOnMysqlFamily(
  "a placing never waits on a write still open: a write's event waiting on the placing's claim closes no circle",
  async () => {
    // The circle this excludes, seen on registration day: a write inserted an event (its row locked
    // to its COMMIT); a placing claimed the committed events around it (SKIP LOCKED), which locks
    // the gap the write's next event goes into; the write's next INSERT waited for the placing,
    // and the placing's UPDATE, scanning the table instead of finding its events by id, waited
    // for the write's first event: a deadlock, and the placing rerun.
    await t.runtime.sequencer.stop();
    await recordTestEvents(t, 3);
    const writer = t.dataSource.createQueryRunner();
    const placer = t.dataSource.createQueryRunner();
    try {
      await writer.startTransaction();
      const [{ id: writerThread }] = await writer.query(`SELECT CONNECTION_ID() AS id`);
      await insertEvent(writer.manager, 1);
      await placer.startTransaction();
      const claimed = await claimUnplacedEvents(placer.manager, 500);
      expect(claimed.length).toBeGreaterThanOrEqual(3);
      const second = insertEvent(writer.manager, 2);
      const waiting = async () =>
        (
          await t.dataSource.query(
            `SELECT trx_state FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'`,
            [writerThread],
          )
        ).length > 0;
      await until(waiting, 10_000, "the write's second event waiting on the claim");
      const first = await takeFeedPositions(placer.manager, claimed.length);
      await placeEventsInFeed(placer.manager, claimed, first);
      await placer.commitTransaction();
      await second;
      await writer.commitTransaction();
    } finally {
      if (placer.isTransactionActive) await placer.rollbackTransaction();
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      await placer.release();
      await writer.release();
    }
    expect(await unplacedCount()).toBe(2);
  },
);

itOnMysqlFamily(
  "a unit of work asking for READ COMMITTED runs at it, and its claim makes no write's event wait; the others stay at REPEATABLE READ",
  async () => {
    await t.runtime.sequencer.stop();
    await recordTestEvents(t, 2);
    const isolation = async (em: EntityManager) => String((await em.query(`SELECT @@tx_isolation AS level`))[0].level);
    const writer = t.dataSource.createQueryRunner();
    try {
      const seen = await inTransaction(
        t.context(),
        "test.read_committed",
        async ({ em }) => {
          const level = await isolation(em);
          const claimed = await claimUnplacedEvents(em, 500);
          // At REPEATABLE READ the claim would lock the gap this INSERT goes into, and it would
          // wait for this COMMIT (the case of the test above): here it commits at once.
          await writer.startTransaction();
          await insertEvent(writer.manager, 3);
          await writer.commitTransaction();
          return { level, claimed: claimed.length };
        },
        { readCommitted: true },
      );
      expect(seen).toEqual({ level: "READ-COMMITTED", claimed: 2 });
      const plain = await inTransaction(t.context(), "test.plain", async ({ em }) => isolation(em));
      expect(plain).toBe("REPEATABLE-READ");
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      await writer.release();
    }
  },
);

it("events committed where no signal reached the sequencer (another process) are placed by its look", async () => {
  // A second sequencer on the same database plays the other instance: it was not woken by a
  // commit, so only its look finds the events (the app's own sequencer is woken by the commit).
  await t.runtime.sequencer.stop();
  const placed: number[] = [];
  const other = startFeedSequencer({
    state: t.state,
    logger: silentLogger,
    onPlaced: (position) => placed.push(position),
    pollMinMs: 20,
    pollMaxMs: 50,
  });
  try {
    await t.dataSource.query(
      `INSERT INTO event (public_id, organization_id, group_id, type, data, actor, created_at)
       VALUES ('00000000-0000-4000-8000-000000000001', 1, ?, 'user.updated', ?, '{"type":"system"}', ?)`,
      [MAPLE.groupId, JSON.stringify({ clogin_id: MAPLE.miles }), onMysqlFamily ? new Date() : "2026-11-28 00:00:00"],
    );
    await until(async () => (await unplacedCount()) === 0, 10_000, "the inserted event placed");
    expect(other.stats.placed).toBe(1);
    expect(placed).toHaveLength(1);
  } finally {
    await other.stop();
  }
});

it("a reader paging along the feed while writes commit concurrently skips nothing and sees each event once", async () => {
  const clogins = [MAPLE.miles, MAPLE.bill];
  const before = await listRest();
  let cursor = before.body.end_cursor as string;
  const seen: string[] = [];
  let writing = true;
  const reader = (async () => {
    // Pages until the writes are done and the feed has nothing more.
    for (;;) {
      const done = !writing && (await unplacedCount()) === 0;
      const page = await listRest(cursor);
      expect(page.status).toBe(200);
      seen.push(...(page.body.events as { id: string }[]).map((event) => event.id));
      cursor = page.body.end_cursor as string;
      if (done && page.body.events.length === 0) return;
    }
  })();
  // Writes in parallel (on MariaDB their transactions commit in any order), and one transaction
  // of several events.
  await Promise.all([
    ...Array.from({ length: 24 }, (_, i) => rename(clogins[i % 2], `Parallel${i}`)),
    recordTestEvents(t, 5),
  ]);
  writing = false;
  await reader;
  const all: { public_id: string }[] = await t.dataSource.query(
    `SELECT public_id FROM event WHERE feed_position > (SELECT COALESCE(MAX(feed_position), 0) FROM event WHERE public_id IN (?)) ORDER BY feed_position`,
    [(before.body.events as { id: string }[]).at(-1)?.id ?? ""],
  );
  expect(all.length).toBeGreaterThanOrEqual(29);
  expect(seen).toEqual(all.map((row) => row.public_id));
});

it("a lone commit is placed at once; commits within FEED_PASS_INTERVAL_MS of that pass are placed together by the next", async () => {
  await t.runtime.sequencer.stop();
  const placed: number[] = [];
  // An interval longer than the test: only the stop ends it, so one pass after it serves every later commit.
  const spaced = startFeedSequencer({
    state: t.state,
    logger: silentLogger,
    onPlaced: (position) => placed.push(position),
    pollMinMs: 3_600_000,
    passIntervalMs: 3_600_000,
  });
  try {
    await rename(MAPLE.miles, "Spaced0");
    await until(async () => placed.length === 1 && (await unplacedCount()) === 0, 10_000, "the first commit placed");
    for (const name of ["Spaced1", "Spaced2", "Spaced3"]) await rename(MAPLE.miles, name);
    await recordTestEvents(t, 2);
    // Four commits woke it within the interval: nothing of them is placed yet.
    expect(await unplacedCount()).toBeGreaterThanOrEqual(5);
    expect(placed).toHaveLength(1);
  } finally {
    await spaced.stop();
  }
  expect(await unplacedCount()).toBe(0);
  expect(placed).toHaveLength(2);
});

// Every add_email or create under load shares a placing with the commits of its interval, so a
// placing's statements are part of what a write costs (issue 33).
// On MySQL/MariaDB the placing runs at READ COMMITTED on a session set to it once, when the
// connection opens (src/db/read-committed-pool.ts): no SET TRANSACTION per placing.
it("a placing is five statements (BEGIN, the claim, the feed row's bump whose answer carries the new last position, the events' positions, COMMIT) on both databases", async () => {
  await t.runtime.sequencer.stop();
  // The feed's row is made by the first placing (one statement more, once).
  await recordTestEvents(t, 1);
  await placeCommittedEvents(t.context());
  const [{ last }] = await t.dataSource.query(`SELECT last_position AS last FROM event_feed WHERE id = 1`);
  await recordTestEvents(t, 3);
  const { statements, result } = await t.countAllStatements(() => placeCommittedEvents(t.context()));
  expect(statements).toBe(5);
  expect(result).toEqual({ placed: 3, lastPosition: Number(last) + 3 });
  const positions = await t.dataSource.query(
    `SELECT feed_position AS p FROM event WHERE feed_position > ? ORDER BY feed_position`,
    [Number(last)],
  );
  expect(positions.map((row: { p: unknown }) => Number(row.p))).toEqual([1, 2, 3].map((i) => Number(last) + i));
});

it("idle, the sequencer backs off to one plain look per pollMaxMs (no transaction)", async () => {
  await t.runtime.sequencer.stop();
  const idle = startFeedSequencer({
    state: t.runtime.state,
    logger: silentLogger,
    onPlaced: () => undefined,
    pollMinMs: 20,
    pollMaxMs: 200,
  });
  try {
    // 20, 40, 80, 160, then every 200 ms.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const { statements } = await t.countAllStatements(() => new Promise((resolve) => setTimeout(resolve, 1000)));
    expect(statements).toBeGreaterThan(0);
    // Upper bound only, so a slow machine cannot fail it; without the back-off it would be 50.
    expect(statements).toBeLessThanOrEqual(1000 / 200 + 1);
  } finally {
    await idle.stop();
  }
});
