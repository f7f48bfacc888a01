import { Field, InputType, Int } from "type-graphql";

/**
 * The registration a mutation acts on: a person (clogin_id) in a project (group_id). Inputs extend it
 * and inherit its fields.
 */
@InputType("RegistrantTargetInput")
export abstract class RegistrantTargetInput {
  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "The user (clogin_id)." })
  cloginId: number;
}
