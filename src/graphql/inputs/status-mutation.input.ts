import { Field, InputType, Int } from "type-graphql";

// Members as sent: createStatus checks every rule (name length, #RRGGBB, uniqueness).
@InputType("CreateStatusInput", { description: "A new registration status of a project (statuses create)." })
export class CreateStatusInput {
  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => String, { description: "1–100 characters; unique in the project, case-insensitively." })
  name: string;

  @Field(() => String, { description: "#RRGGBB" })
  color: string;

  @Field(() => Boolean, { defaultValue: false, description: "An excluding status takes users out of active counts." })
  isExcluded: boolean;
}
