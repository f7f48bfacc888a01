import { execute, parse, type GraphQLSchema } from "graphql";
import type { LiveEvent } from "../../src/domain/events/live-events";
import { createRequestContext } from "../../src/domain/context";
import { createSubscriptionContext } from "../../src/graphql/context";
import { buildGraphqlSchema } from "../../src/graphql/schema";
import { createLogger } from "../../src/http/logger";
import { MAPLE } from "../fixtures/test-fixture";
import { MAPLE_PRINCIPAL, openDomainDatabase, type DomainDatabase } from "../support/domain-database";

// What an event's `user` costs and sees (issue 35 §2). graphql-ws executes the subscription's
// selection once per event with the subscription's one context; here that execution runs
// directly (graphql-js executes a subscription document over an event given as its root value),
// so its statements are counted without the poll beside it. One statement per subscriber and
// event, the one read of `user(groupId, cloginId)`, whatever the selection reads under it; and a
// second event of the same subscription reads anew instead of answering from the first's loaders.

let db: DomainDatabase;
let schema: GraphQLSchema;
beforeAll(async () => {
  db = await openDomainDatabase();
  schema = await buildGraphqlSchema();
});
afterAll(() => db.dispose());

// What the one read of a user answers: its summary (name, metaInfo) and lists.
const USER_SELECTION = `{ id name metaInfo { id updatedAt totalForms } forms { completed form { name fields { identifier } } } fieldValues { text } emails { subject } }`;
const SELECTION = parse(
  `subscription ($groupId: Int!) { registrationChanged(groupId: $groupId) { type user ${USER_SELECTION} } }`,
);

const eventAbout = (cloginId: number): LiveEvent => ({
  eventId: "00000000-0000-4000-8000-000000000000",
  type: "user.updated",
  createdAt: new Date(),
  groupId: MAPLE.groupId,
  cloginId,
  actor: { type: "system" },
  data: { clogin_id: cloginId },
  cursor: "x",
});

it("one statement per event for the user and everything selected under it; each event reads the user anew", async () => {
  const request = createRequestContext(db.state, "ws-test", MAPLE_PRINCIPAL);
  const live = { open: () => Promise.reject(new Error("not subscribing here")) };
  const contextValue = createSubscriptionContext(request, createLogger("silent"), null, live);
  const run = (cloginId: number, document = SELECTION) =>
    db.countStatements(async () =>
      execute({
        schema,
        document,
        rootValue: eventAbout(cloginId),
        contextValue,
        variableValues: { groupId: MAPLE.groupId },
      }),
    );

  const first = await run(MAPLE.miles);
  expect(first.result.errors).toBeUndefined();
  const user = (first.result.data as { registrationChanged: { user: { forms: unknown[] } } }).registrationChanged.user;
  expect(user.forms.length).toBeGreaterThan(0); // the lists were read, by the same statement
  expect(first.statements).toBe(1);
  // Fields read by loaders (the person's first name, the tags) on the same subscription's context.
  const loaded = parse(
    `subscription ($groupId: Int!) { registrationChanged(groupId: $groupId) { user { firstName tags { name } } } }`,
  );
  expect((await run(MAPLE.miles, loaded)).result.data).toMatchObject({
    registrationChanged: { user: { firstName: "Miles" } },
  });

  await db.dataSource.query(`UPDATE person SET first_name = ?, last_name = ? WHERE id = ?`, [
    "Re",
    "Named",
    MAPLE.miles,
  ]);
  const second = await run(MAPLE.miles);
  expect(second.statements).toBe(1);
  expect(second.result.data).toMatchObject({ registrationChanged: { user: { name: "Re Named" } } });
  expect((await run(MAPLE.miles, loaded)).result.data).toMatchObject({
    registrationChanged: { user: { firstName: "Re" } },
  });
});

it("any selection costs what the same selection of user(groupId, cloginId) costs", async () => {
  const selection = `{ id firstName mainEmail tags { name } cartLines { productName } ${USER_SELECTION.slice(1)}`;
  const request = createRequestContext(db.state, "ws-test", MAPLE_PRINCIPAL);
  const live = { open: () => Promise.reject(new Error("not subscribing here")) };
  const count = (source: string, rootValue?: LiveEvent) =>
    db.countStatements(async () => {
      const contextValue = createSubscriptionContext(request, createLogger("silent"), null, live);
      const variableValues = { groupId: MAPLE.groupId, cloginId: MAPLE.miles };
      const result = await execute({ schema, document: parse(source), rootValue, contextValue, variableValues });
      expect(result.errors).toBeUndefined();
      return result.data;
    });
  const query = await count(
    `query ($groupId: Int!, $cloginId: Int!) { user(groupId: $groupId, cloginId: $cloginId) ${selection} }`,
  );
  const event = await count(
    `subscription ($groupId: Int!) { registrationChanged(groupId: $groupId) { user ${selection} } }`,
    eventAbout(MAPLE.miles),
  );
  expect(event.result).toEqual({ registrationChanged: { user: (query.result as { user: unknown }).user } });
  expect(event.statements).toBe(query.statements);
});
