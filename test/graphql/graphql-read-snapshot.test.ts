import * as formsData from "../../src/data/forms.data";
import { onMysqlFamily } from "../support/database";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { SCALE, scaleHeaders, scaleOrganization } from "./scale-fixture";

// Issue 12 §6: a GraphQL query reads one snapshot. Its summary (metaInfo) comes from the root
// statement and its form list from a loader batch a tick later; an update that commits between
// the two must not make them disagree. A latch in the form-list read runs the update exactly
// there, so the interleaving is certain rather than left to timing.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: { organizations: [scaleOrganization()] } });
});
afterAll(() => t.close());

const USER = SCALE.parentOf(10);
// A users page: its summaries come from the root statement, its form sets from a loader batch.
// (The `user` root reads its form set in its own statement since issue 23: nothing to straddle.)
const READ = `query($g: Int!) { users(groupId: $g, first: 50, filter: { level: PARENT }) { edges { node {
  cloginId metaInfo { totalForms completedForms } forms { completed } } } } }`;

interface User {
  cloginId: number;
  metaInfo: { totalForms: number; completedForms: number };
  forms: { completed: boolean }[];
}
interface Read {
  users: { edges: { node: User }[] };
}

const readUser = async () => {
  const result = await graphql<Read>(t.app, READ, { g: SCALE.groupId }, scaleHeaders);
  expect(result.errors).toBeUndefined();
  const user = result.data!.users.edges.find((edge) => edge.node.cloginId === USER)?.node;
  expect(user).toBeDefined();
  return user!;
};

const completedIn = (user: User) => user.forms.filter((form) => form.completed).length;

afterEach(() => jest.restoreAllMocks());

describe("a GraphQL query reads one snapshot (issue 12)", () => {
  it("an update committed between the summary and the form-list batch changes neither: they agree", async () => {
    const before = await readUser();
    expect(before.metaInfo.completedForms).toBeLessThan(before.metaInfo.totalForms);
    expect(completedIn(before)).toBe(before.metaInfo.completedForms);

    const original = formsData.readFormSets;
    let update: Promise<{ status: number }> | null = null;
    jest.spyOn(formsData, "readFormSets").mockImplementation(async (em, uids) => {
      if (!update) {
        update = postRest(
          t.app,
          "users",
          { action: "update", group_id: SCALE.groupId, clogin_id: USER, mark_forms_complete: "all" },
          scaleHeaders,
        ).then((response) => ({ status: response.status }));
        // MySQL/MariaDB: the update commits on another connection before the batch reads.
        // SQLite: the query holds the transaction turn, so the update waits for it to end.
        if (onMysqlFamily) expect((await update).status).toBe(200);
      }
      return original(em, uids);
    });

    const during = await readUser();
    expect(update).not.toBeNull();
    expect(completedIn(during)).toBe(during.metaInfo.completedForms);
    expect(during.metaInfo.completedForms).toBe(before.metaInfo.completedForms);

    // The update did change both: a read that straddled it without a snapshot would have mixed them.
    expect((await update!).status).toBe(200);
    jest.restoreAllMocks();
    const after = await readUser();
    expect(after.metaInfo.completedForms).toBe(after.metaInfo.totalForms);
    expect(completedIn(after)).toBe(after.metaInfo.totalForms);
  });

  it("a mutation is not held in a read-only snapshot: it writes and answers what it wrote", async () => {
    const result = await graphql(
      t.app,
      `
        mutation ($i: AddEmailInput!) {
          addEmail(input: $i) {
            user {
              emails {
                subject
              }
            }
          }
        }
      `,
      {
        i: {
          groupId: SCALE.groupId,
          cloginId: SCALE.parentOf(1),
          emails: [{ from: "a@scale.test", to: "b@scale.test", subject: "Snapshot", body: "…" }],
        },
      },
      scaleHeaders,
    );
    expect(result.errors).toBeUndefined();
    expect(JSON.stringify(result.data)).toContain("Snapshot");
  });
});
