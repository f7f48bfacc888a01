import { defaultFieldResolver, isObjectType, type GraphQLResolveInfo, type GraphQLSchema } from "graphql";
import { forbidden } from "../../domain/errors";
import type { GraphqlContext } from "../context";

// What a registrant session may reach (contract §10): the root fields `me` and `updateMe`, and
// on its own User only what is its own. An API account may not use those two root fields.

/** Root fields of a registrant session; every other root field answers FORBIDDEN. */
export const REGISTRANT_ROOT_FIELDS: ReadonlySet<string> = new Set(["me", "updateMe"]);

/**
 * User fields a registrant may not read: they lead to other registrations (parent, children),
 * to project-wide data (project totals) or to the organization's internal records (tags, the
 * email history kept by admins).
 */
export const REGISTRANT_HIDDEN_USER_FIELDS: ReadonlySet<string> = new Set([
  "parent",
  "children",
  "project",
  "tags",
  "emails",
]);

/**
 * Root fields open to both kinds of caller: refetching by Node id applies the caller's own
 * authorization to each id (a registrant reaches only its own registration's objects).
 */
export const SHARED_ROOT_FIELDS: ReadonlySet<string> = new Set(["node", "nodes"]);

const ROOT_TYPES = new Set(["Query", "Mutation"]);

/** Throws FORBIDDEN when the caller may not resolve this field (see the sets above). */
export function checkRegistrantScope(context: GraphqlContext, info: GraphQLResolveInfo): void {
  const registrant = context.request.registrant;
  if (ROOT_TYPES.has(info.parentType.name) && !SHARED_ROOT_FIELDS.has(info.fieldName)) {
    const selfField = REGISTRANT_ROOT_FIELDS.has(info.fieldName);
    if (registrant && !selfField) {
      throw forbidden(`${info.fieldName} is not available to a registrant session; use me or updateMe.`);
    }
    if (!registrant && selfField) {
      throw forbidden(
        `${info.fieldName} needs a registrant session (Authorization: Bearer <session token>); an API account reads users with user or users.`,
      );
    }
  } else if (registrant && info.parentType.name === "User" && REGISTRANT_HIDDEN_USER_FIELDS.has(info.fieldName)) {
    throw forbidden(`User.${info.fieldName} is not available to a registrant session.`);
  }
}

/**
 * Puts the check in front of the resolvers of exactly the fields it can refuse: the root fields
 * and the hidden User fields. (A type-graphql global middleware would do the same but wraps every
 * field of every object in two async calls: in a page of 50 users that was most of the CPU.)
 */
export function applyRegistrantScope(schema: GraphQLSchema): GraphQLSchema {
  for (const typeName of [...ROOT_TYPES, "User"]) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (typeName === "User" && !REGISTRANT_HIDDEN_USER_FIELDS.has(field.name)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (root, args, context: GraphqlContext, info) => {
        checkRegistrantScope(context, info);
        return resolve(root, args, context, info);
      };
    }
  }
  return schema;
}
