import { Field, ID, InterfaceType } from "type-graphql";

@InterfaceType("Node", {
  description:
    "An object with a global, stable, opaque id (Relay global object identification); refetch it with node(id).",
  // The concrete type is the __typename each source carries (set where the source is built).
  resolveType: (value: { __typename?: string }) => value.__typename,
})
export abstract class Node {
  @Field(() => ID, { description: "Opaque and globally unique; stable across requests. Refetch with node(id)." })
  id: string;
}
