import { createChild, createUser } from "../../src/domain/users/users.service";
import { loadUserSummaries } from "../../src/domain/users/user-summary";
import { LAB, labFixture } from "../fixtures/lab-fixture";
import { MAPLE } from "../fixtures/test-fixture";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";

// A create that makes its person answers with a summary built from what it wrote
// (summaryOfNewRegistration, src/data/new-registration-summary.ts), not read back: the form counts are the
// twin of the summary's SQL. Each create here is held to the summary a read of the same
// registration decodes, every member (dates to the millisecond, counts, money, name) equal.

let t: DomainDatabase;
beforeAll(async () => {
  t = await openDomainDatabase({ fixture: labFixture() });
});
afterAll(() => t.dispose());

const base = { cloginId: null, connectedTo: null, values: {}, submitForms: true, disableEmailSending: false };
let made = 0;
const email = () => `summary${(made += 1)}@lab.test`;

async function expectSummaryAsRead(outcome: { uid: number; summary: unknown }) {
  const read = (await loadUserSummaries(t.context().em, [outcome.uid])).get(outcome.uid);
  expect(read).toBeDefined();
  expect(outcome.summary).toEqual(read);
}

describe("a create's summary, built from its writes, equals the summary read back", () => {
  it.each([
    [
      "a completed mandatory form whose triggers send an email, add two products and a mandatory form; mapped first name",
      { groupId: LAB.groupId, mainEmail: email(), values: { f_501_1: "Zed", f_501_7: "M" } },
    ],
    [
      "the same values, nothing submitted",
      { groupId: LAB.groupId, mainEmail: email(), values: { f_501_1: "Zed" }, submitForms: false },
    ],
    [
      "emails disabled; the organization name through its mapped field, no first or last name",
      {
        groupId: LAB.groupId,
        mainEmail: email(),
        values: { f_501_1: "Ya", f_501_9: "Acme" },
        disableEmailSending: true,
      },
    ],
    [
      "another form completed (its trigger emails the office)",
      { groupId: LAB.groupId, mainEmail: email(), lastName: "Lo", values: { f_504_1: "Yes" } },
    ],
    [
      "a username of its own and an organization name",
      { groupId: LAB.groupId, mainEmail: email(), username: `u${made}`, orgName: "Org" },
    ],
    [
      "the demo's create: three triggers (email, product, form)",
      { groupId: MAPLE.groupId, mainEmail: email(), firstName: "Bo", values: { f_301_3: "M" } },
    ],
    [
      "a parent of a family project: forms of levels all and parent",
      { groupId: LAB.familyGroupId, mainEmail: email(), firstName: "Pa" },
    ],
    ["an existing person (read back, as before)", { groupId: LAB.familyGroupId, cloginId: LAB.ann }],
  ])("%s", async (_name, command) => {
    const outcome = await createUser(t.context(), { ...base, ...command });
    await expectSummaryAsRead(outcome);
  });

  it("a child of a family project, new person, with an application date of its own", async () => {
    const outcome = await createChild(t.context(), {
      ...base,
      groupId: LAB.familyGroupId,
      connectedTo: 700005,
      firstName: "Kiddo",
      applicationDate: "2026-05-01 10:11:12",
      values: { f_603_1: "7" },
    });
    await expectSummaryAsRead(outcome);
    expect(outcome.summary).toMatchObject({ parentCloginId: 700005, totalForms: 2 });
  });
});
