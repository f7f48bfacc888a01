import { ObjectType, type ObjectTypeOptions } from "type-graphql";

/**
 * type-graphql's @ObjectType with simple resolvers: a field without a resolver method reads its
 * property through GraphQL's default resolver instead of a type-graphql wrapper that allocates a
 * resolver-data object and runs the (empty) middleware chain for every field of every object. A
 * users page of 50 nodes resolves hundreds of such fields. Field middleware would need the
 * wrapper; no plain field of ours has any (guards live in the resolver methods).
 */
export function GraphqlObjectType(name: string, options: ObjectTypeOptions = {}): ClassDecorator {
  return ObjectType(name, { simpleResolvers: true, ...options });
}
