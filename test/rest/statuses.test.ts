import request from "supertest";
import { createStatus } from "../../src/domain/statuses/statuses.service";
import { Status } from "../../src/entities";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { onMysqlFamily } from "../support/database";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const create = (doc: unknown, extra: Record<string, unknown> = {}) =>
  request(t.app)
    .post("/reg/api2/statuses/")
    .set(mapleHeaders)
    .send({ action: "create", group_id: MAPLE.groupId, doc, ...extra } as object);

const statusCount = () => t.dataSource.manager.count(Status);

/** Contract §3 VALIDATION_FAILED body, key by key, with the expected problems in order. */
function expectInvalid(res: request.Response, problems: { path: string; message: string }[]) {
  expect(res.status).toBe(400);
  expect(Object.keys(res.body)).toEqual(["success", "msg", "msg_type", "error_code", "errors", "request_id"]);
  expect(res.body.success).toBe(false);
  expect(res.body.msg_type).toBe("error");
  expect(res.body.error_code).toBe("VALIDATION_FAILED");
  expect(res.body.errors).toEqual(problems);
  const more = problems.length - 1;
  const others = more === 0 ? "" : ` (and ${more} more problem${more > 1 ? "s" : ""}, see errors)`;
  expect(res.body.msg).toBe(`${problems[0].path} ${problems[0].message}${others}.`);
  expect(res.body.request_id).toBe(res.headers["x-request-id"]);
}

describe("statuses create (seed §4.4, contract §7)", () => {
  it("answers the legacy success shape key by key, status_id a number, HTTP 200", async () => {
    const res = await create({ status_name: "Cancellation Risk", color: "#800000", is_excluded: 0 });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Object.keys(res.body)).toEqual(["msg", "msg_type", "status_id", "success"]);
    expect(res.body.msg).toBe("Status created successfully.");
    expect(res.body.msg_type).toBe("info");
    expect(typeof res.body.status_id).toBe("number");
    expect(Number.isInteger(res.body.status_id)).toBe(true);
    expect(res.body.success).toBe(true);

    const stored = await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id });
    expect(stored).toMatchObject({
      projectId: MAPLE.groupId,
      name: "Cancellation Risk",
      nameKey: "cancellation risk",
      color: "#800000",
      isExcluded: false,
    });
  });

  it("is_excluded 1 makes an excluding status", async () => {
    const res = await create({ status_name: "Archived campers", color: "#333333", is_excluded: 1 });
    expect(res.status).toBe(200);
    expect((await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id })).isExcluded).toBe(true);
  });

  it("is_excluded defaults to 0", async () => {
    const res = await create({ status_name: "Waitlisted", color: "#00FF00" });
    expect(res.status).toBe(200);
    expect((await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id })).isExcluded).toBe(false);
  });

  it('is_excluded accepts true/false and the digit strings "0"/"1"', async () => {
    const cases = [
      [true, true],
      [false, false],
      ["1", true],
      ["0", false],
    ] as const;
    for (const [index, [sent, stored]] of cases.entries()) {
      const res = await create({ status_name: `Flag form ${index}`, color: "#010203", is_excluded: sent });
      expect(res.status).toBe(200);
      expect((await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id })).isExcluded).toBe(stored);
    }
  });

  it("a group_id sent as a string of digits is accepted", async () => {
    const res = await create({ status_name: "Digits", color: "#ABCDEF" }, { group_id: String(MAPLE.groupId) });
    expect(res.status).toBe(200);
    expect((await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id })).projectId).toBe(
      MAPLE.groupId,
    );
  });

  it("the name is stored trimmed and the colour upper-case", async () => {
    const res = await create({ status_name: "  Paid in full  ", color: "#abcdef" });
    expect(res.status).toBe(200);
    expect(await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id })).toMatchObject({
      name: "Paid in full",
      color: "#ABCDEF",
    });
  });

  it("a name of exactly 100 characters (emoji count as one) is accepted", async () => {
    const name = `${"🎪".repeat(10)}${"n".repeat(90)}`;
    const res = await create({ status_name: name, color: "#123123" });
    expect(res.status).toBe(200);
    expect((await t.dataSource.manager.findOneByOrFail(Status, { id: res.body.status_id })).name).toBe(name);
  });
});

describe("statuses create: validation (contract §7), nothing written", () => {
  const cases: [string, unknown, { path: string; message: string }[]][] = [
    ["a missing status_name", { color: "#800000" }, [{ path: "doc.status_name", message: "is required" }]],
    [
      "a null status_name",
      { status_name: null, color: "#800000" },
      [{ path: "doc.status_name", message: "is required" }],
    ],
    [
      "an empty status_name",
      { status_name: "", color: "#800000" },
      [{ path: "doc.status_name", message: "must not be empty" }],
    ],
    [
      "a blank status_name",
      { status_name: "   ", color: "#800000" },
      [{ path: "doc.status_name", message: "must not be empty" }],
    ],
    [
      "a numeric status_name",
      { status_name: 42, color: "#800000" },
      [{ path: "doc.status_name", message: "must be a string, got 42" }],
    ],
    [
      "a status_name of 101 characters",
      { status_name: "x".repeat(101), color: "#800000" },
      [{ path: "doc.status_name", message: "must be at most 100 characters, got 101" }],
    ],
    ["a missing color", { status_name: "No colour" }, [{ path: "doc.color", message: "is required" }]],
    [
      "a color name",
      { status_name: "Red", color: "red" },
      [{ path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "red"' }],
    ],
    [
      "a short color",
      { status_name: "Short", color: "#FFF" },
      [{ path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "#FFF"' }],
    ],
    [
      "a color without #",
      { status_name: "Hashless", color: "800000" },
      [{ path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "800000"' }],
    ],
    [
      "a non-hex color",
      { status_name: "Nonhex", color: "#80000G" },
      [{ path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "#80000G"' }],
    ],
    [
      "is_excluded 2",
      { status_name: "Two", color: "#800000", is_excluded: 2 },
      [{ path: "doc.is_excluded", message: "must be true or false (or 1 or 0), got 2" }],
    ],
    [
      'is_excluded "x"',
      { status_name: "Ex", color: "#800000", is_excluded: "x" },
      [{ path: "doc.is_excluded", message: 'must be true or false (or 1 or 0), got "x"' }],
    ],
    [
      "is_excluded -1",
      { status_name: "Minus", color: "#800000", is_excluded: -1 },
      [{ path: "doc.is_excluded", message: "must be true or false (or 1 or 0), got -1" }],
    ],
    [
      "every broken member at once",
      { status_name: "", color: "blue", is_excluded: 7 },
      [
        { path: "doc.status_name", message: "must not be empty" },
        { path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "blue"' },
        { path: "doc.is_excluded", message: "must be true or false (or 1 or 0), got 7" },
      ],
    ],
  ];
  for (const [name, doc, problems] of cases) {
    it(`${name} is 400 VALIDATION_FAILED naming ${problems.map((p) => p.path).join(", ")}`, async () => {
      const before = await statusCount();
      expectInvalid(await create(doc), problems);
      expect(await statusCount()).toBe(before);
    });
  }

  it("a missing doc is 400 naming doc", async () => {
    const before = await statusCount();
    const res = await request(t.app)
      .post("/reg/api2/statuses/")
      .set(mapleHeaders)
      .send({ action: "create", group_id: MAPLE.groupId });
    expectInvalid(res, [{ path: "doc", message: "is required (a JSON object)" }]);
    expect(await statusCount()).toBe(before);
  });

  it("a doc that is not an object is 400 naming doc", async () => {
    expectInvalid(await create("Cancellation Risk"), [{ path: "doc", message: "must be a JSON object" }]);
  });

  it("an empty array doc counts as an empty object (the docs call doc an array)", async () => {
    expectInvalid(await create([]), [
      { path: "doc.status_name", message: "is required" },
      { path: "doc.color", message: "is required" },
    ]);
  });

  it("a huge invalid value is not echoed back whole", async () => {
    const res = await create({ status_name: "Long colour", color: "#".repeat(10000) });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(1000);
  });
});

describe("statuses create: duplicate names (contract §7)", () => {
  it("a second status of the same name, in any case, is 409 CONFLICT with the existing status_id", async () => {
    const first = await create({ status_name: "On Hold", color: "#FFAA00", is_excluded: 0 });
    expect(first.status).toBe(200);
    const before = await statusCount();
    for (const name of ["On Hold", "on hold", "ON HOLD", "  On hold "]) {
      const res = await create({ status_name: name, color: "#000000", is_excluded: 1 });
      expect(res.status).toBe(409);
      expect(Object.keys(res.body)).toEqual(["success", "msg", "msg_type", "error_code", "status_id", "request_id"]);
      expect(res.body).toMatchObject({
        success: false,
        msg_type: "error",
        error_code: "CONFLICT",
        status_id: first.body.status_id,
      });
      expect(res.body.msg).toBe(
        `Status name "${name.trim()}" is taken in this project by status_id ${first.body.status_id} ("On Hold"); names are compared case-insensitively.`,
      );
      expect(res.body.request_id).toBe(res.headers["x-request-id"]);
    }
    expect(await statusCount()).toBe(before);
  });

  it("a fixture status name is a duplicate too (Accepted → status 9)", async () => {
    const res = await create({ status_name: "accepted", color: "#00AA00" });
    expect(res.status).toBe(409);
    expect(res.body.status_id).toBe(9);
  });

  it("the same name in another project of the organization is not a duplicate", async () => {
    const res = await create({ status_name: "Accepted", color: "#00AA00" }, { group_id: MAPLE.jazzGroupId });
    expect(res.status).toBe(200);
    expect(res.body.status_id).not.toBe(9);
  });

  it("concurrent creates of one name: exactly one succeeds, the others get 409 with its id", async () => {
    const before = await statusCount();
    const results = await Promise.all(
      ["Race", "race", "RACE", "Race ", "rAcE"].map((name) => create({ status_name: name, color: "#0A0B0C" })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) {
      expect(loser.status).toBe(409);
      expect(loser.body.error_code).toBe("CONFLICT");
      expect(loser.body.status_id).toBe(winners[0].body.status_id);
    }
    expect(await statusCount()).toBe(before + 1);
  });

  // SQLite has a single writer, so only MySQL/MariaDB can interleave two creates past the check.
  (onMysqlFamily ? it : it.skip)(
    "a create racing an uncommitted insert of the same name gets 409 with that row's id (unique index)",
    async () => {
      const holder = t.dataSource.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      try {
        const held = await holder.manager.insert(Status, {
          projectId: MAPLE.groupId,
          name: "Held",
          nameKey: "held",
          color: "#111111",
          isExcluded: false,
        });
        const heldId = Number(held.identifiers[0].id);
        const pending = create({ status_name: "HELD", color: "#222222" }).then((res) => res);
        // Its check cannot see the uncommitted row; its insert then waits on the unique index.
        // Commit once that insert is running (bounded, so a surprise can never hang the suite).
        const insertRunning = async () =>
          Number(
            (
              await t.dataSource.query(
                "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND COMMAND = 'Query' AND INFO LIKE 'INSERT INTO `status`%'",
              )
            )[0].n,
          ) > 0;
        let polls = 0;
        while (!(await insertRunning())) {
          if (++polls > 5000) throw new Error("the racing insert never started");
          await new Promise((resolve) => setImmediate(resolve));
        }
        await holder.commitTransaction();
        const res = await pending;
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ error_code: "CONFLICT", status_id: heldId });
        expect(await t.dataSource.manager.countBy(Status, { projectId: MAPLE.groupId, nameKey: "held" })).toBe(1);
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
    },
  );

  it("the domain call (as GraphQL makes it) gives the same CONFLICT with extra.status_id", async () => {
    await expect(
      createStatus(t.context(), { groupId: MAPLE.groupId, name: "ACCEPTED", color: "#00AA00", isExcluded: 0 }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      details: { extra: { status_id: 9 } },
    });
  });

  it("the domain call returns the created status in domain terms", async () => {
    const created = await createStatus(t.context(), {
      groupId: MAPLE.groupId,
      name: " Domain made ",
      color: "#a1b2c3",
      isExcluded: true,
    });
    expect(created).toEqual({
      id: expect.any(Number),
      groupId: MAPLE.groupId,
      name: "Domain made",
      color: "#A1B2C3",
      isExcluded: true,
    });
  });
});
