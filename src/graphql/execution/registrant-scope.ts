import type { GraphQLSchema } from "graphql";
import { getMetadataStorage, type AuthChecker } from "type-graphql";
import { forbidden } from "../../domain/errors";
import type { GraphqlContext } from "../context";

// What a registrant session may reach (contract §10), through type-graphql's own authorization:
// each root field, and each User field a registrant may not read, says who may resolve it with
// `@Authorized(...roles)`; this checker compares the caller's role and answers FORBIDDEN with the
// message of the case. (Only the decorated fields carry type-graphql's middleware: a global one
// wrapped every field of every object in two async calls, most of a users page's CPU.)

/** Who calls: an API account (organization key) or a registrant session (Bearer token). */
export type CallerRole = "account" | "registrant";

/** Every root field opens to these: refetching by Node id applies each object's own rules. */
export const EVERY_CALLER: CallerRole[] = ["account", "registrant"];

const ROOT_TYPES = new Set(["Query", "Mutation", "Subscription"]);

/** Passes the caller whose role the field names; throws FORBIDDEN, naming the field, otherwise. */
export const registrantScopeChecker: AuthChecker<GraphqlContext, CallerRole> = ({ context, info }, roles) => {
  const role: CallerRole = context.request.registrant ? "registrant" : "account";
  if (roles.includes(role)) return true;
  if (!ROOT_TYPES.has(info.parentType.name)) {
    throw forbidden(`${info.parentType.name}.${info.fieldName} is not available to a registrant session.`);
  }
  if (role === "registrant" && info.parentType.name === "Subscription") {
    throw forbidden(
      `${info.fieldName} is not available to a registrant session; subscribe to userChanged of your own registration.`,
    );
  }
  throw forbidden(
    role === "registrant"
      ? `${info.fieldName} is not available to a registrant session; use me or updateMe.`
      : `${info.fieldName} needs a registrant session (Authorization: Bearer <session token>); an API account reads users with user or users.`,
  );
};

/**
 * Fails the build when a root field says nothing of who may call it: a new root field must
 * choose, so none is open to a registrant session by omission.
 */
export function assertRootFieldsAuthorized(schema: GraphQLSchema): GraphQLSchema {
  const declared = new Set(getMetadataStorage().authorizedFields.map((field) => field.fieldName));
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (!declared.has(field.name)) {
        throw new Error(
          `${type!.name}.${field.name} declares no @Authorized roles (src/graphql/execution/registrant-scope.ts)`,
        );
      }
    }
  }
  return schema;
}
