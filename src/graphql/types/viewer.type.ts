import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";

@GraphqlObjectType("Viewer", { description: "The API key making the request and what it may do." })
export class ViewerType {
  @Field(() => Int, { description: "The key's Api-Id." })
  apiId: number;

  @Field(() => String, { description: "The key's Api-User." })
  apiUser: string;

  @Field(() => Int, { description: "The organization the API account belongs to." })
  organizationId: number;

  @Field(() => Boolean, { description: "True when the key is limited neither to operations nor to projects." })
  fullAccess: boolean;

  @Field(() => [String], {
    nullable: true,
    description: 'The scope names the key may use ("read", "users.update", …); null: every operation.',
  })
  scopes: string[] | null;

  @Field(() => [Int], { nullable: true, description: "The projects (groupId) the key reaches; null: all of them." })
  groupIds: number[] | null;
}
