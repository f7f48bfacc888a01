import { Field, ID, InterfaceType } from "type-graphql";

/** The concrete type of a Node: the __typename each source carries (set where the source is built). */
export const nodeTypeOf = (value: { __typename?: string }): string | undefined => value.__typename;

@InterfaceType("Node", {
  description:
    "An object with a global, stable, opaque id (Relay global object identification); refetch it with node(id).",
  resolveType: nodeTypeOf,
})
export abstract class Node {
  @Field(() => ID, { description: "Opaque and globally unique; stable across requests. Refetch with node(id)." })
  id: string;
}
