import { getNamedType, GraphQLObjectType, parse, type GraphQLField, type OperationDefinitionNode } from "graphql";
import { buildGraphqlSchema } from "../../src/graphql/schema";
import { readsInOneStatement } from "../../src/graphql/execution/one-statement-read";
import { SUMMARY_FIELDS } from "../../src/graphql/resolvers/user-read";
import { USER_SUMMARY_FIELDS } from "../../src/graphql/types/user-summary-fields";

// The User fields a root read answers from its summary are derived from the table of fields that
// present summary members (USER_SUMMARY_FIELDS) and metaInfo: a summary field added to the table
// is answered by the one-statement reads of `user` and `users` without a second list to keep.

const selectionOf = (field: GraphQLField<unknown, unknown>): string => {
  const type = getNamedType(field.type);
  if (!(type instanceof GraphQLObjectType)) return field.name;
  const scalars = Object.values(type.getFields()).filter((m) => !(getNamedType(m.type) instanceof GraphQLObjectType));
  return `${field.name} { ${scalars.map((m) => m.name).join(" ")} }`;
};

describe("the User fields answered by the summary", () => {
  it("are metaInfo and every field of the summary table, each a field of the User type", async () => {
    const schema = await buildGraphqlSchema();
    const user = schema.getType("User") as GraphQLObjectType;
    expect([...SUMMARY_FIELDS].sort()).toEqual(
      ["metaInfo", ...Object.keys(USER_SUMMARY_FIELDS)].map((field) => `User.${field}`).sort(),
    );
    for (const coordinate of SUMMARY_FIELDS) {
      expect({ coordinate, onUser: Object.hasOwn(user.getFields(), coordinate.slice("User.".length)) }).toEqual({
        coordinate,
        onUser: true,
      });
    }
  });

  it("each is read by the one statement of user and of a users page; a field outside the summary is not", async () => {
    const schema = await buildGraphqlSchema();
    const user = schema.getType("User") as GraphQLObjectType;
    const oneStatement = (query: string) => {
      const document = parse(query);
      return readsInOneStatement(schema, document.definitions[0] as OperationDefinitionNode, document, {});
    };
    const reads = (selection: string) => ({
      selection,
      user: oneStatement(`{ user(groupId: 1, cloginId: 2) { cloginId ${selection} } }`),
      page: oneStatement(`{ users(groupId: 1, first: 5) { edges { node { cloginId ${selection} } } } }`),
    });
    for (const coordinate of SUMMARY_FIELDS) {
      const selection = selectionOf(user.getFields()[coordinate.slice("User.".length)]);
      expect(reads(selection)).toEqual({ selection, user: true, page: true });
    }
    // A field read by a loader of its own keeps the page out of one statement: the check can fail.
    expect(reads("forms { completed }").page).toBe(false);
  });
});
