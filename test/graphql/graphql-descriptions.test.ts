import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLSchema,
} from "graphql";
import { buildGraphqlSchema } from "../../src/graphql/schema";

// Issue 35 §6: every type, field, argument, input field and enum value of the schema a client
// introspects has a description (schema.graphql is printed from the same schema). The walk is of
// the built schema, so an element added without one fails here by its coordinate.

/** The coordinates (Type, Type.field, Type.field(arg:), Enum.VALUE) that have no description. */
export function undescribedElements(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const blank = (text: string | null | undefined) => !text || text.trim() === "";
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__") || isSpecifiedScalarType(type)) continue;
    if (blank(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const arg of "args" in field ? field.args : [])
          if (blank(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name}:)`);
      }
    }
    if (isEnumType(type))
      for (const value of type.getValues()) if (blank(value.description)) missing.push(`${type.name}.${value.name}`);
  }
  return missing;
}

it("every type, field, argument, input field and enum value has a description", async () => {
  expect(undescribedElements(await buildGraphqlSchema())).toEqual([]);
});

it("the walk names what lacks one (a field, an argument, an enum value, a type)", async () => {
  const schema = await buildGraphqlSchema();
  const user = schema.getType("User");
  const events = schema.getQueryType()!.getFields().events;
  const eventType = schema.getType("EventType");
  if (!isObjectType(user) || !isEnumType(eventType)) throw new Error("User and EventType are in the schema");
  const field = user.getFields().cloginId;
  const arg = events.args.find((candidate) => candidate.name === "types")!;
  const value = eventType.getValue("USER_UPDATED")!;
  const saved = [field.description, arg.description, value.description, eventType.description];
  try {
    field.description = undefined;
    arg.description = "  ";
    value.description = null;
    eventType.description = undefined;
    expect(undescribedElements(schema)).toEqual(
      expect.arrayContaining(["User.cloginId", "Query.events(types:)", "EventType.USER_UPDATED", "EventType"]),
    );
    expect(undescribedElements(schema)).toHaveLength(4);
  } finally {
    [field.description, arg.description, value.description, eventType.description] = saved;
  }
});
