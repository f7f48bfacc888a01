import crypto from "node:crypto";
import { authenticate, TIMESTAMP_WINDOW_SECONDS, type HeaderReader } from "../../src/auth/authenticate";
import { apiTokenMatches, hashApiToken } from "../../src/auth/secrets";
import { DomainError } from "../../src/domain/errors";
import { resolveOwnedProject } from "../../src/domain/group-scope";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { MAPLE_PRINCIPAL } from "../support/domain-database";
import { expectLegacyError } from "../support/legacy-error";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

const NOW_MS = Date.UTC(2027, 0, 15, 12, 0, 0);
const nowSeconds = NOW_MS / 1000;

/** A header reader over a plain object, case-insensitive like express `req.get`. */
function headers(values: Record<string, string | undefined>): HeaderReader {
  const lower = new Map(Object.entries(values).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => lower.get(name.toLowerCase());
}

const maple = { "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": MAPLE.apiToken };

async function refusalOf(reader: HeaderReader): Promise<DomainError> {
  try {
    await authenticate(t.dataSource.manager, reader, NOW_MS);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("authenticated");
}

describe("authenticate", () => {
  it("returns the principal with the account's organization", async () => {
    await expect(authenticate(t.dataSource.manager, headers(maple), NOW_MS)).resolves.toEqual(MAPLE_PRINCIPAL);
    await expect(
      authenticate(
        t.dataSource.manager,
        headers({ "Api-Id": OTHER.apiId, "Api-User": OTHER.apiUser, "Api-Token": OTHER.apiToken }),
        NOW_MS,
      ),
    ).resolves.toEqual({
      apiAccountId: 20001,
      apiUser: OTHER.apiUser,
      organizationId: 2,
      scope: { groupIds: null, operations: null },
    });
  });

  it("reads the header names through the reader in any case, and Api-User case-insensitively", async () => {
    const shouting = headers({
      "API-ID": ` ${MAPLE.apiId} `,
      "api-user": MAPLE.apiUser.toUpperCase(),
      "aPI-tOKEN": MAPLE.apiToken,
    });
    await expect(authenticate(t.dataSource.manager, shouting, NOW_MS)).resolves.toEqual(MAPLE_PRINCIPAL);
  });

  describe("refuses with UNAUTHENTICATED and one message for every cause", () => {
    const causes: [string, Record<string, string | undefined>][] = [
      ["no Api-Id", { ...maple, "Api-Id": undefined }],
      ["no Api-User", { ...maple, "Api-User": undefined }],
      ["no Api-Token", { ...maple, "Api-Token": undefined }],
      ["no headers at all", {}],
      ["a non-numeric Api-Id", { ...maple, "Api-Id": "15263abc" }],
      ["an unknown Api-Id", { ...maple, "Api-Id": "99999" }],
      ["a wrong Api-User", { ...maple, "Api-User": "someone@maple.test" }],
      ["a wrong token", { ...maple, "Api-Token": `${MAPLE.apiToken}x` }],
      ["another account's token", { ...maple, "Api-Token": OTHER.apiToken }],
      [
        "an inactive account (20002)",
        { "Api-Id": "20002", "Api-User": "old@other.test", "Api-Token": "inactive-token-20002" },
      ],
    ];
    const messages = new Set<string>();

    it.each(causes)("%s", async (_cause, values) => {
      const error = await refusalOf(headers(values));
      expect(error.code).toBe("UNAUTHENTICATED");
      messages.add(error.message);
    });

    it("says the same thing whatever was wrong", () => {
      expect(messages.size).toBe(1);
      expect([...messages][0]).toBe(
        "Authentication failed: Api-Id, Api-User and Api-Token must match an active API account.",
      );
    });
  });

  describe("Timestamp", () => {
    const at = (timestamp: string) => headers({ ...maple, Timestamp: timestamp });

    it("is optional", async () => {
      await expect(authenticate(t.dataSource.manager, headers(maple), NOW_MS)).resolves.toEqual(MAPLE_PRINCIPAL);
    });

    it.each([0, 1, -TIMESTAMP_WINDOW_SECONDS, TIMESTAMP_WINDOW_SECONDS])(
      "is accepted %i s from the server clock",
      async (offset) => {
        await expect(authenticate(t.dataSource.manager, at(String(nowSeconds + offset)), NOW_MS)).resolves.toEqual(
          MAPLE_PRINCIPAL,
        );
      },
    );

    it.each([
      ["too old", String(nowSeconds - TIMESTAMP_WINDOW_SECONDS - 1)],
      ["too far in the future", String(nowSeconds + TIMESTAMP_WINDOW_SECONDS + 1)],
      ["in milliseconds, too old", String(NOW_MS - (TIMESTAMP_WINDOW_SECONDS + 1) * 1000)],
      ["not an integer", String(nowSeconds + 0.5)],
      ["not a number", "yesterday"],
      ["empty", ""],
      ["negative", String(-nowSeconds)],
    ])("is refused with STALE_TIMESTAMP when %s", async (_why, timestamp) => {
      const error = await refusalOf(at(timestamp));
      expect(error.code).toBe("STALE_TIMESTAMP");
      expect(error.message).toBe(
        `Timestamp must be Unix seconds (or milliseconds, 13 digits) within ${TIMESTAMP_WINDOW_SECONDS} s of the server clock.`,
      );
    });

    it("accepts milliseconds (13 digits) within the window (contract §17)", async () => {
      await expect(authenticate(t.dataSource.manager, at(String(NOW_MS - 200_000)), NOW_MS)).resolves.toEqual(
        MAPLE_PRINCIPAL,
      );
    });

    it("is checked only after the credentials, so it reveals nothing to a stranger", async () => {
      const error = await refusalOf(headers({ ...maple, "Api-Token": "wrong-token", Timestamp: "1" }));
      expect(error.code).toBe("UNAUTHENTICATED");
    });
  });

  describe("constant-time token check", () => {
    // Two comparisons every time: the current token and one replaced by a rotation (or a decoy).
    it("compares through crypto.timingSafeEqual when the account exists", async () => {
      const compare = jest.spyOn(crypto, "timingSafeEqual");
      await refusalOf(headers({ ...maple, "Api-Token": "wrong-token" }));
      expect(compare).toHaveBeenCalledTimes(2);
      expect(compare.mock.results.map((result) => result.value)).toEqual([false, false]);
    });

    it.each([
      ["an unknown Api-Id", { ...maple, "Api-Id": "424242" }],
      ["a malformed Api-Id", { ...maple, "Api-Id": "not-a-number" }],
      ["no Api-Token", { ...maple, "Api-Token": undefined }],
    ])("still compares a full-length digest when there is %s", async (_cause, values) => {
      const compare = jest.spyOn(crypto, "timingSafeEqual");
      await refusalOf(headers(values));
      expect(compare).toHaveBeenCalledTimes(2);
      for (const [presented, stored] of compare.mock.calls as [Buffer, Buffer][]) {
        expect(presented).toHaveLength(32);
        expect(stored).toHaveLength(32);
      }
    });

    it("apiTokenMatches compares equal-length digests, and still calls timingSafeEqual on a malformed stored hash", () => {
      const compare = jest.spyOn(crypto, "timingSafeEqual");
      expect(apiTokenMatches("some-token", hashApiToken("some-token"))).toBe(true);
      expect(apiTokenMatches("some-token-but-much-longer-than-the-other-one", hashApiToken("some-token"))).toBe(false);
      expect(apiTokenMatches("some-token", "abc123")).toBe(false);
      expect(apiTokenMatches("some-token", "")).toBe(false);
      expect(compare).toHaveBeenCalledTimes(4);
      for (const [a, b] of compare.mock.calls as [Buffer, Buffer][]) {
        expect(a).toHaveLength(32);
        expect(b).toHaveLength(32);
      }
    });
  });

  describe("over HTTP (the legacy REST transport uses it)", () => {
    const envelope = { action: "no_such_action", group_id: MAPLE.groupId };

    it("accepts header names in any case", async () => {
      const response = await postRest(t.app, "projects", envelope, {
        "API-ID": MAPLE.apiId,
        "api-user": MAPLE.apiUser,
        "API-TOKEN": MAPLE.apiToken,
      });
      // Past authentication: the envelope's unknown action is the first problem.
      expectLegacyError(response, 400, "UNKNOWN_ACTION");
    });

    it("refuses a wrong token with 401", async () => {
      const response = await postRest(t.app, "projects", envelope, { ...maple, "Api-Token": "nope-nope-nope" });
      expectLegacyError(response, 401, "UNAUTHENTICATED");
    });
  });
});

describe("resolveOwnedProject", () => {
  it("returns a project of the caller's organization", async () => {
    const project = await resolveOwnedProject(t.context(), MAPLE.groupId);
    expect(project).toMatchObject({ id: MAPLE.groupId, organizationId: 1, name: "Summer Camp 2027" });
  });

  it("refuses a foreign project and a missing one with the same FORBIDDEN answer", async () => {
    const refusal = (groupId: number) =>
      resolveOwnedProject(t.context(), groupId).then(
        () => {
          throw new Error(`resolved ${groupId}`);
        },
        (error: unknown) => error as DomainError,
      );
    const foreign = await refusal(OTHER.groupId);
    const missing = await refusal(987654321);
    expect(foreign).toBeInstanceOf(DomainError);
    expect([foreign.code, missing.code]).toEqual(["FORBIDDEN", "FORBIDDEN"]);
    expect(foreign.message).toBe(`group_id ${OTHER.groupId} is not a project of your organization`);
    expect(missing.message).toBe("group_id 987654321 is not a project of your organization");
  });

  it("answers the other organization for its own project and refuses Maple's", async () => {
    const other = {
      apiAccountId: 20001,
      apiUser: OTHER.apiUser,
      organizationId: 2,
      scope: { groupIds: null, operations: null },
    };
    await expect(resolveOwnedProject(t.context(other), OTHER.groupId)).resolves.toMatchObject({ id: OTHER.groupId });
    await expect(resolveOwnedProject(t.context(other), MAPLE.groupId)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
