import { Field, Int } from "type-graphql";
import { addSummaryMember } from "../../src/data/user-projection";
import { META_INFO_KEYS } from "../../src/rest/presenters/user-envelope";
import {
  fromSummary,
  META_INFO_FIELDS,
  MetaInfoType,
  type SummaryFieldPresenter,
} from "../../src/graphql/types/user.type";
import type { SummaryMemberName, UserSummary } from "../../src/domain/users/user-summary";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { uidOf } from "../support/rows";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 23: a summary member is declared once, in the projection (src/data/user-projection.ts),
// and served by one line per presenter (docs/architecture.md, "Adding a summary member"). This
// test adds a member the product does not have, exactly that way, before the app starts, and
// asks both transports for it: REST meta_info, GraphQL metaInfo on `user` and on a users page,
// where the page statement reads the member's own SQL only when the selection asks for it.

// 1. The projection: the member, its SQL (its own part) and its decoder.
addSummaryMember("cartLineCount", {
  sql: {
    column: "cart_line_count",
    select: "(SELECT COUNT(*) FROM cart_line cl WHERE cl.registration_id = r.uid) AS cart_line_count",
  },
  decode: (raw) => (raw.cart_line_count === undefined ? 0 : Number(raw.cart_line_count)),
});
const member = (summary: UserSummary) => (summary as unknown as Record<string, number>).cartLineCount;
// 2. REST: one line of meta_info.
META_INFO_KEYS.cart_line_count = (summary) => String(member(summary));
// 3. GraphQL: one line of MetaInfo (and its field on the type, as a real member declares it with @Field).
Field(() => Int)(MetaInfoType.prototype, "cartLineCount");
(META_INFO_FIELDS as Record<string, SummaryFieldPresenter<unknown>>).cartLineCount = fromSummary(
  "cartLineCount" as SummaryMemberName,
);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const cartLinesOf = async (cloginId: number) => {
  const uid = await uidOf(t.dataSource, MAPLE.groupId, cloginId);
  const [row] = (await t.dataSource.query(`SELECT COUNT(*) AS n FROM cart_line WHERE registration_id = ?`, [uid])) as {
    n: unknown;
  }[];
  return Number(row.n);
};

describe("a member added to the projection is served by both transports", () => {
  it("REST meta_info and GraphQL metaInfo (user and users page) carry it, read from its SQL", async () => {
    const expected = await cartLinesOf(MAPLE.miles);
    // The fixture gives Miles cart lines: a member read as 0 would not pass for one read right.
    expect(expected).toBeGreaterThan(0);

    const rest = await postRest(t.app, "users", {
      action: "get_info",
      group_id: MAPLE.groupId,
      clogin_id: MAPLE.miles,
    });
    expect(rest.status).toBe(200);
    expect(rest.body.meta_info.cart_line_count).toBe(String(expected));

    const user = await graphql<{ user: { metaInfo: { cartLineCount: number } } }>(
      t.app,
      `
        query ($g: Int!, $c: Int!) {
          user(groupId: $g, cloginId: $c) {
            metaInfo {
              cartLineCount
            }
          }
        }
      `,
      { g: MAPLE.groupId, c: MAPLE.miles },
    );
    expect(user.errors).toBeUndefined();
    expect(user.data!.user.metaInfo.cartLineCount).toBe(expected);

    // A page asking for the member alone reads its part (the look-ahead derives it), in one statement.
    const { statements, result } = await t.countStatements(() =>
      graphql<{ users: { edges: { node: { cloginId: number; metaInfo: { cartLineCount: number } } }[] } }>(
        t.app,
        `
          query ($g: Int!) {
            users(groupId: $g, first: 50) {
              edges {
                node {
                  cloginId
                  metaInfo {
                    cartLineCount
                  }
                }
              }
            }
          }
        `,
        { g: MAPLE.groupId },
      ),
    );
    expect(result.errors).toBeUndefined();
    expect(statements).toBe(1);
    const nodes = result.data!.users.edges.map((edge) => edge.node);
    expect(nodes.find((node) => node.cloginId === MAPLE.miles)?.metaInfo.cartLineCount).toBe(expected);
    for (const node of nodes) expect(node.metaInfo.cartLineCount).toBe(await cartLinesOf(node.cloginId));
  });
});
